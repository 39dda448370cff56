import { type AnyStreamingEvent, encodeEvent, encodeEventJSON, SSE_DONE } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import type { Backpressure, ServiceResponse } from '../exchange.js';

/**
 * An SSE answer, the one writer of every streamed route (`/v1/responses`, the legacy
 * `/v1/chat/completions`): `run` produces the turn's events, each written as `encode` makes it (the spec's
 * `event:`/`data:` frame by default; '' writes nothing), then `[DONE]` ends the stream. The transport's
 * `backpressure` is handed to `run`, so a turn waits while its client is behind and is cancelled when the
 * client stalls past `stalledWriteMs` (the rule the Node adapter applies while the stream runs).
 */
export function eventStream(
  run: (write: (event: AnyStreamingEvent, json?: string) => void, backpressure?: Backpressure) => Promise<unknown>,
  encode: (event: AnyStreamingEvent) => string = encodeEvent,
  headers?: Record<string, string>,
): ServiceResponse {
  const all: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  };
  if (headers) Object.assign(all, headers);
  return {
    status: 200,
    headers: all,
    body: {
      pipe: async (write: (chunk: string) => void, backpressure?: Backpressure) => {
        try {
          await run((event, json) => {
            // An event's JSON made already (a stored turn's last event) is framed as encodeEvent frames it.
            const text =
              json !== undefined && encode === encodeEvent ? encodeEventJSON(event.type, json) : encode(event);
            if (text !== '') write(text);
          }, backpressure);
        } catch (error) {
          // The store failing has already been told to the client (error, response.failed); anything else
          // inside a started stream is a server bug (model failures end in response.failed).
          if (!(error instanceof ResponsesError)) {
            console.error(error);
            throw error;
          }
        }
        write(SSE_DONE);
      },
    },
  };
}
