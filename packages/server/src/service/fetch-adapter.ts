import { Cancellation } from '../cancellation.js';
import type { ServiceRequest, ServiceResponse } from '../exchange.js';

/** The fetch-style transport: a web `Request` in, a web `Response` out (SSE as a byte stream). */
export function toFetchHandler(
  handle: (request: ServiceRequest) => Promise<ServiceResponse>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    // Both ways a client goes away: the request aborts, or the response stream is cancelled.
    const cancellation = Cancellation.following(request.signal);
    const url = new URL(request.url);
    const response = await handle({
      method: request.method,
      path: url.pathname,
      query: url.search.slice(1),
      header: (name) => request.headers.get(name),
      text: (maxBytes) => readLimited(request, maxBytes),
      cancellation,
    });
    const init = { status: response.status, headers: response.headers };
    if (response.body === null || typeof response.body === 'string') return new Response(response.body, init);
    const events = response.body;
    const encoder = new TextEncoder();
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        events
          .pipe((chunk) => !cancelled && controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk))
          .then(
            () => !cancelled && controller.close(),
            (error: unknown) => !cancelled && controller.error(error),
          );
      },
      cancel() {
        cancelled = true;
        cancellation.cancel();
      },
    });
    return new Response(stream, init);
  };
}

/** The body of a request or response as text, or null past `maxBytes` (reading stops there). */
export async function readLimited(
  message: { body: ReadableStream<Uint8Array> | null },
  maxBytes: number,
): Promise<string | null> {
  if (!message.body) return '';
  const reader = message.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
