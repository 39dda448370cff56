import { asResponsesError, invalidRequest } from './errors.js';
import type { Cancellation } from './cancellation.js';
import { depthExceeds, nestedTooDeep, type ServerLimits } from './limits.js';
import { LATEST_SPEC_VERSION, SPEC_VERSIONS, type SpecVersion } from '@openresponses/zod';
import type { Context } from '@opentelemetry/api';
import type { TurnFacts } from './telemetry/attributes.js';
import type { SpanScope } from './telemetry/span-scope.js';

/**
 * A request as the service reads it. Transports give it cheaply: the fetch-style handler from a web
 * `Request`, the Node entry straight from `node:http` (web `Request`/`Response` objects cost Node
 * ~20 µs each to build, more than a whole turn of the embedded model).
 */
export interface ServiceRequest {
  /** The HTTP method. */
  method: string;
  /** The path, without the query string. */
  path: string;
  /** The query string without its `?` ('' or absent when there is none). */
  query?: string;
  /** A request header by lower-case name, or null. */
  header(name: string): string | null;
  /** The body as UTF-8 text, or null when it is longer than `maxBytes` (the rest is not kept). */
  text(maxBytes: number): Promise<string | null>;
  /** Cancelled when the client goes away. */
  cancellation?: Cancellation;
  /** The tenant, set by the authentication middleware (routes read only their tenant's responses). */
  owner?: string;
  /** The request id (`x-request-id`: the client's, or generated), set by the first middleware. */
  id?: string;
  /** The route template the router matched (`/v1/responses/:id`), for spans, metrics and the request log. */
  route?: string;
  /** What the turn this request ran told about itself (model, tokens), once it has ended: for the request log and metrics. */
  turn?: TurnFacts;
  /**
   * A background turn this request started and was answered before it ended (`background: true` without
   * `stream`): its facts, and `ended`, settled once it has ended, when the request log tells it.
   */
  backgroundTurn?: {
    /** What the background turn told about itself (model, tokens, failure): read once `ended` settles. */
    facts: TurnFacts;
    /** Settles (never rejects) once the background turn has ended, whatever its outcome. */
    ended: Promise<void>;
  };
  /** The OpenTelemetry context of the request's server span, set by its stage while tracing: its turn and store calls are children. */
  traceContext?: Context;
  /** The request's recording server span (service/telemetry.ts's `serverSpans` stage), ended once it is answered. */
  serverScope?: SpanScope;
}

/**
 * An event stream: `pipe(write)` writes SSE text (or its bytes) in order and settles when the stream has ended.
 * A transport that can tell when its client falls behind passes `backpressure`: the turn awaits what it
 * returns between steps (a promise while the client's unread bytes are over the high-water mark; undefined
 * when it keeps up), and the transport ends the stream, cancelling the turn, when its client stalls.
 */
export interface ServiceEventStream {
  /** Writes the stream's SSE text through `write`, waiting on `backpressure` when given; resolves when the stream ends. */
  pipe(write: (chunk: string | Uint8Array) => void, backpressure?: Backpressure): Promise<void>;
}

/** Undefined while the client keeps up; otherwise a promise that settles when it has read enough (or was dropped). */
export type Backpressure = () => Promise<void> | undefined;

/** What `service.handle` answers: transport-neutral, written by the Node adapter or turned into a `Response`. */
export interface ServiceResponse {
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Record<string, string>;
  /** JSON text, an event stream, or nothing. */
  body: string | ServiceEventStream | null;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): ServiceResponse {
  return jsonText(status, JSON.stringify(body), headers);
}

/** A JSON answer whose text was already made (a stored turn's response, serialized once for the store and the wire). */
export function jsonText(status: number, text: string, headers?: Record<string, string>): ServiceResponse {
  // A plain literal (no spread) keeps one hidden class for the headers that middleware adds to.
  const all: Record<string, string> = { 'content-type': 'application/json' };
  if (headers) Object.assign(all, headers);
  return { status, headers: all, body: text };
}

/** A layer that needs an event stream's end (the turn slot, the request log, the stream's duration, the server span). */
export interface StreamEndWatcher {
  /** The stream has been written (`error` undefined) or has failed with `error`; told once. */
  streamEnded(error: unknown): void;
}

/**
 * An event stream that tells its watchers when it has ended, in the order they were added (innermost layer
 * first, as wrappers that each awaited the stream would see it end), from the frame that writes it: a layer
 * adds a watcher (`watchStreamEnd`) rather than wrap the stream in a frame of its own, which cost two promises
 * and an async frame a layer on every streamed answer.
 */
export abstract class WatchedStream implements ServiceEventStream {
  private watchers: StreamEndWatcher[] | undefined;

  abstract pipe(write: (chunk: string | Uint8Array) => void, backpressure?: Backpressure): Promise<void>;

  watch(watcher: StreamEndWatcher): void {
    if (this.watchers === undefined) this.watchers = [watcher];
    else this.watchers.push(watcher);
  }

  /**
   * Tells the watchers how the stream ended (`failed`, with `error`), then throws what it failed with; what a
   * watcher throws is what the watchers after it see, as a wrapper's throw was for the wrappers outside it.
   */
  protected ended(failed: boolean, error: unknown): void {
    const watchers = this.watchers;
    if (watchers !== undefined)
      for (let i = 0; i < watchers.length; i++) {
        try {
          watchers[i]!.streamEnded(failed ? error : undefined);
        } catch (thrown) {
          failed = true;
          error = thrown;
        }
      }
    if (failed) throw error;
  }
}

/** Another layer's event stream (an application's middleware made it), watched from one frame around it. */
export class WrappedStream extends WatchedStream {
  constructor(protected readonly body: ServiceEventStream) {
    super();
  }

  /** Writes the wrapped stream (a subclass may write it otherwise: with a span current). */
  protected written(write: (chunk: string | Uint8Array) => void, backpressure?: Backpressure): Promise<void> {
    return this.body.pipe(write, backpressure);
  }

  async pipe(write: (chunk: string | Uint8Array) => void, backpressure?: Backpressure): Promise<void> {
    let failed = false;
    let error: unknown;
    try {
      await this.written(write, backpressure);
    } catch (thrown) {
      failed = true;
      error = thrown;
    }
    this.ended(failed, error);
  }
}

/**
 * `response` (whose body is the event stream `body`) with `watcher` told when the stream ends: added to the
 * stream when it is watched already (the service's own streams are), else around it.
 */
export function watchStreamEnd(
  response: ServiceResponse,
  body: ServiceEventStream,
  watcher: StreamEndWatcher,
): ServiceResponse {
  if (body instanceof WatchedStream) {
    body.watch(watcher);
    return response;
  }
  const watched = new WrappedStream(body);
  watched.watch(watcher);
  return withBody(response, watched);
}

/**
 * `response` with another body (a stream wrapped to see its end): a literal of its three fields, where
 * `Object.assign({}, response, { body })` cost ~1k instructions a streamed turn (callgrind).
 */
export function withBody(response: ServiceResponse, body: ServiceEventStream): ServiceResponse {
  return { status: response.status, headers: response.headers, body };
}

export function errorResponse(error: unknown): ServiceResponse {
  const failure = asResponsesError(error);
  return json(failure.status, failure.toJSON(), failure.headers);
}

/** JSON text as a value: too deep a nesting or a syntax error is a 400 naming `what`. */
export function parseJson(text: string, limits: Pick<ServerLimits, 'maxJsonDepth'>, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidRequest('invalid_json', `${what} is not valid JSON: ${(error as Error).message}`, null, 400, {
      cause: error,
    });
  }
  // V8's JSON.parse takes no call stack for nesting (5,000,000 levels parse on Node 20): the value is refused
  // before anything recursive (validators, JSON.stringify) reads it, by a walk over its containers, cheaper
  // than a scan of the text for brackets.
  if (depthExceeds(value, limits.maxJsonDepth)) throw nestedTooDeep(what, limits);
  return value;
}

/** The spec version a request asks for with `OpenResponses-Version` (the latest without it). */
export function negotiateVersion(header: string | null): SpecVersion {
  if (!header) return LATEST_SPEC_VERSION;
  const asked = header.trim();
  if ((SPEC_VERSIONS as readonly string[]).includes(asked)) return asked as SpecVersion;
  throw invalidRequest(
    'unsupported_version',
    `OpenResponses-Version '${header}' is not supported; this server speaks ${SPEC_VERSIONS.join(', ')}.`,
    null,
  );
}
