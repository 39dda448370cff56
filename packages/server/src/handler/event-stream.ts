import { type AnyStreamingEvent, encodeEvent, encodeEventJSON, SSE_DONE } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import { type Backpressure, type ServiceResponse, WatchedStream } from '../exchange.js';
import { terminalEventJson } from '../responses/turn-events.js';

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
  return { status: 200, headers: all, body: new EventStreamBody(run, encode) };
}

/** The body of an SSE answer (a class: one object per answer, its end watched without a wrapper). */
class EventStreamBody extends WatchedStream {
  constructor(
    private readonly run: (
      write: (event: AnyStreamingEvent, json?: string) => void,
      backpressure?: Backpressure,
    ) => Promise<unknown>,
    private readonly encode: (event: AnyStreamingEvent) => string,
  ) {
    super();
  }

  async pipe(write: (chunk: string) => void, backpressure?: Backpressure): Promise<void> {
    const encode = this.encode;
    // response.created's response and its JSON, until the next event: response.in_progress carries the
    // same object (the writer sends it unchanged), whose ~30 fields are then serialized once, not twice
    // (`terminalEventJson` splices a response's JSON into any event's).
    let created: unknown;
    let createdJson = '';
    let failed = false;
    let failure: unknown;
    try {
      try {
        await this.run((event, json) => {
          if (encode !== encodeEvent) {
            const text = encode(event);
            if (text !== '') write(text);
            return;
          }
          // `response` is read only beside response.created: a load from events of every shape is megamorphic.
          if (created !== undefined) {
            if (json === undefined && (event as { response?: unknown }).response === created)
              json = terminalEventJson(event, createdJson);
            created = undefined;
          } else if (json === undefined && event.type === 'response.created') {
            const response = (event as { response?: unknown }).response;
            if (typeof response === 'object' && response !== null) {
              createdJson = JSON.stringify(response);
              json = terminalEventJson(event, createdJson);
              created = response;
            }
          }
          // An event's JSON made already (a stored turn's last event, a created response's) is framed as
          // encodeEvent frames it.
          write(json === undefined ? encodeEvent(event) : encodeEventJSON(event.type, json));
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
    } catch (error) {
      failed = true;
      failure = error;
    }
    // The layers watching the stream's end (the turn slot, the request log, metrics, the server span) are told here.
    this.ended(failed, failure);
  }
}
