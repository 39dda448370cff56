/** The terminal line of every Open Responses stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * One server-sent event: `event:` names the type (the spec requires it to match the body's `type`),
 * `data:` carries the JSON on one line, and there is no `id:` (servers SHOULD NOT use it).
 */
export function encodeEvent(event: { type: string }): string {
  // JSON.stringify never emits raw newlines, so one `data:` line always suffices.
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Encodes events to SSE bytes; `data: [DONE]` follows the last event when the writable side closes. */
export function createSSEEncoderStream(): TransformStream<{ type: string }, Uint8Array> {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(event, controller) {
      controller.enqueue(encoder.encode(encodeEvent(event)));
    },
    flush(controller) {
      controller.enqueue(encoder.encode(SSE_DONE));
    },
  });
}
