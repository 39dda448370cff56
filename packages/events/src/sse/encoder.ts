/** The terminal SSE message of an Open Responses stream. */
export const SSE_DONE = 'data: [DONE]\n\n';

/**
 * Encodes one event as an SSE message: `event: <type>` then `data: <json>`, no `id` (the spec says servers
 * SHOULD NOT send one). `JSON.stringify` escapes every line break inside strings, so one `data:` line suffices.
 */
export function encodeEvent(event: { type: string }): string {
  return encodeEventJSON(event.type, JSON.stringify(event));
}

/**
 * The same SSE message from an event's JSON made already (a server reusing a stored turn's serialization):
 * `json` must be `JSON.stringify` of the event whose `type` is given.
 */
export function encodeEventJSON(type: string, json: string): string {
  // The last type that passed is not searched again, nor its head made again: a stream's deltas repeat one type
  // (two searches an event were ~3.7k of a gateway SSE turn's instructions; the head's two string joins an event,
  // ~0.8 KB of a turn's garbage). Only a string that passed is kept, so `===` implies it.
  if (type !== checkedType) {
    if (typeof type !== 'string' || type.indexOf('\n') >= 0 || type.indexOf('\r') >= 0) {
      throw new TypeError(`Cannot encode an event whose type is not a single-line string: ${JSON.stringify(type)}`);
    }
    checkedType = type;
    checkedHead = `event: ${type}\ndata: `;
  }
  return `${checkedHead}${json}\n\n`;
}
/** The last event type `encodeEventJSON` found to be a single line, and its message's head (`event:` line, `data: `). */
let checkedType = '';
let checkedHead = 'event: \ndata: ';

/** A stream that encodes events as UTF-8 SSE messages and appends `data: [DONE]` when its writable side closes. */
export function createSSEEncoderStream(): TransformStream<
  {
    /** The event type, written as the `event:` line. */
    type: string;
  },
  Uint8Array
> {
  const encoder = new TextEncoder();
  return new TransformStream<{ type: string }, Uint8Array>({
    transform(event, controller) {
      controller.enqueue(encoder.encode(encodeEvent(event)));
    },
    flush(controller) {
      controller.enqueue(encoder.encode(SSE_DONE));
    },
  });
}
