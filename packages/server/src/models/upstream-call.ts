import type { Context, Span } from '@opentelemetry/api';
import { createSSEFrameDecoder, type SSEFrame, SSEFrameError } from '@openresponses/events';
import { Cancellation, onAbort } from '../cancellation.js';
import { ResponsesError } from '../errors.js';
import { parseUpstreamJson, type UpstreamLimits } from '../limits.js';
import type { Redactor } from '../redaction.js';
import type { TurnFacts } from '../telemetry/attributes.js';
import { clock } from '../telemetry/clock.js';
import { endClientSpan, startClientSpan, withTraceHeaders, within } from '../telemetry/tracing.js';
import { traceparentOf, w3cPropagation } from '../telemetry/traceparent.js';
import { type BoundedText, FrameReading, READ_WHOLE, readBounded, type WholeBodyReading } from './upstream-body.js';
import type { UpstreamFetch, UpstreamRequestInit, UpstreamResponse } from './upstream.js';
import {
  bodyTooLarge,
  CLIENT_GONE,
  callFailure,
  eventTooLarge,
  streamTooLarge,
  unavailable,
} from './upstream-errors.js';

/**
 * What an upstream call follows of the client's request: it is aborted when the client goes away, and
 * traced as a child of the turn's span.
 */
export interface ClientRequest {
  readonly signal?: AbortSignal;
  onCancel?(listener: () => void): () => void;
  readonly traceContext?: Context;
  /** The turn's facts, where the call adds the time it kept the turn waiting (`upstreamMs`). */
  readonly facts?: Pick<TurnFacts, 'upstreamMs'>;
}

/** Bytes of an upstream error body read (the message shown is cut far shorter); the rest is dropped. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * One upstream call of any provider family, read through one bounded reader: the whole body at most
 * `maxUpstreamBodyBytes`, a stream one event (and line) at most `maxUpstreamEventBytes`, an idle timer that
 * only events restart (SSE comments, keep-alives, do not), and an overall deadline from request to last
 * byte. Each breach is a spec error and drops the upstream connection; nothing is kept past a bound.
 * It is also the request's init: `signal` is made only when a fetch reads it (`nodeFetch` follows `abort`).
 * While the turn is traced, the call is a client span (HTTP client conventions) from `send` to `close`, a
 * child of the turn's span, its context sent upstream as W3C `traceparent`. The span lives here rather than
 * in a fetch wrapper: wrapping each body read cost an SSE gateway turn ~100 µs (an extra promise per chunk).
 */
export class UpstreamCall implements UpstreamRequestInit {
  readonly abort = new Cancellation();
  /** Set once the answer was read to its end: closing then leaves the connection alone. */
  finished = false;
  private readonly traceContext: Context | undefined;
  private readonly facts: Pick<TurnFacts, 'upstreamMs'> | undefined;
  /** `clock.now()` when the request was sent, until its wait is counted (then -1). */
  private sentAt = -1;
  private span: Span | undefined;
  private status: number | undefined;
  private spanError: unknown;
  private stopped: 'idle' | 'deadline' | undefined;
  private clientWent = false;
  /** `clock.now()` when the call began: the deadline runs from here. */
  private readonly startedAt: number;
  /** `clock.now()` at the call's last activity (its start, an event, a body chunk): the idle bound runs from here. */
  private activeAt: number;
  /**
   * One timer for both bounds, due at the nearer; on firing it stops the call or re-arms for what is left.
   * Two timers, each armed, refreshed on every read and cleared, cost a streamed gateway turn ~1.5k instructions more.
   */
  private timer: ReturnType<typeof setTimeout>;
  private readonly stopListening: () => void;

  /** The client span's `traceparent` under W3C propagation, sent beside `untracedHeaders`. */
  traceparent: string | undefined;

  constructor(
    readonly method: 'GET' | 'POST',
    /** The provider's headers (under another propagator than W3C's, a copy with what it injects, once sent). */
    private requestHeaders: Record<string, string>,
    readonly body: string | undefined,
    private readonly limits: Omit<UpstreamLimits, 'maxUpstreamModels'>,
    private readonly redactor: Redactor,
    client?: ClientRequest,
  ) {
    this.traceContext = client?.traceContext;
    this.facts = client?.facts;
    this.startedAt = this.activeAt = clock.now();
    this.timer = setTimeout(this.onTimer, Math.min(limits.upstreamIdleMs, limits.upstreamDeadlineMs));
    const onClientGone = () => {
      this.clientWent = true;
      this.abort.cancel();
    };
    this.stopListening = client?.onCancel
      ? client.onCancel(onClientGone)
      : client?.signal
        ? onAbort(client.signal, onClientGone)
        : noop;
  }

  /** The request headers, `traceparent` included (a copy each read then). */
  get headers(): Record<string, string> {
    const traceparent = this.traceparent;
    return traceparent === undefined ? this.requestHeaders : Object.assign({}, this.requestHeaders, { traceparent });
  }

  /** The provider's headers, when `traceparent` is sent beside them. */
  get untracedHeaders(): Record<string, string> | undefined {
    return this.traceparent === undefined ? undefined : this.requestHeaders;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** What a fetch that bounds `text()` and `json()` itself reads at most. */
  get maxBodyBytes(): number {
    return this.limits.maxUpstreamBodyBytes;
  }

  /** Whether the client went away (the call was aborted for it: nothing more is owed to anyone). */
  get clientGone(): boolean {
    return this.clientWent;
  }

  /**
   * Counts the wait once, at the first of: the whole body read, the first events of a stream, the call closed
   * (a failure). One clock pair per call: a stream's later reads interleave with the server's own work.
   */
  private answered(): void {
    if (this.sentAt < 0) return;
    this.facts!.upstreamMs = (this.facts!.upstreamMs ?? 0) + (clock.now() - this.sentAt);
    this.sentAt = -1;
  }

  /** The timer fired: a bound that has passed stops the call (the one passed first names it); else it re-arms. */
  private readonly onTimer = () => {
    const now = clock.now();
    const idleEnds = this.activeAt + this.limits.upstreamIdleMs;
    const deadline = this.startedAt + this.limits.upstreamDeadlineMs;
    const due = Math.min(idleEnds, deadline);
    if (now >= due) this.stop(deadline <= idleEnds ? 'deadline' : 'idle');
    else this.timer = setTimeout(this.onTimer, Math.ceil(due - now));
  };

  private stop(why: 'idle' | 'deadline'): void {
    this.stopped ??= why;
    this.abort.cancel();
  }

  /** Sends the request; a failure to get an answer is a spec error. */
  async send(fetch: UpstreamFetch, url: string): Promise<UpstreamResponse> {
    if (this.facts) this.sentAt = clock.now();
    const scope = startClientSpan(this.method, url, this.traceContext);
    if (scope) {
      this.span = scope.span;
      if (w3cPropagation()) this.traceparent = traceparentOf(scope.span.spanContext(), scope.context);
      else this.requestHeaders = withTraceHeaders(scope, this.requestHeaders);
    }
    try {
      const response = await within(scope, fetch, undefined, url, this);
      this.status = response.status;
      if (response.status === 503) throw this.failed(await this.unavailable(response));
      return response;
    } catch (error) {
      throw this.failed(this.failure(error));
    }
  }

  /** An upstream that answers 503 is unavailable for now (here, once for every family, before any family's mapping). */
  private async unavailable(response: UpstreamResponse): Promise<ResponsesError> {
    return unavailable(this.errorJson(await this.errorText(response)), response.headers, this.redactor);
  }

  /** The connection broke while the answer was read (`cause`: the reader's error), noted for the client span. */
  private broken(code: string, message: string, cause: unknown): ResponsesError {
    return this.failed(new ResponsesError('model_error', code, message, null, undefined, { cause }));
  }

  /** `error`, noted for the client span (the first one counts). */
  private failed<E>(error: E): E {
    if (this.span) this.spanError ??= error;
    return error;
  }

  /**
   * Why the call failed, as a spec error (`server_error`, with the status a gateway answers for it): the idle timer
   * or the deadline (504), or an upstream that cannot be reached (502).
   */
  failure(error: unknown): ResponsesError {
    return callFailure(error, this.stopped, this.limits, this.redactor);
  }

  /**
   * The whole body as text, at most `maxUpstreamBodyBytes` (each chunk restarts the idle timer). Past the
   * bound the connection is dropped and the call fails with `upstream_response_too_large`. Promises chained
   * rather than async functions nested: each layer was a promise and a microtask more per JSON turn.
   */
  text(response: UpstreamResponse): Promise<string> {
    const max = this.limits.maxUpstreamBodyBytes;
    const reading =
      READ_WHOLE in response ? this.readWhole(response as WholeBodyReading, max) : this.read(response, max, false);
    return reading.then((body) => {
      this.answered();
      if (body.over) {
        this.abort.cancel();
        throw this.failed(bodyTooLarge(max));
      }
      return body.text;
    });
  }

  /**
   * Upstream JSON text (a body `text()` read, an event's data) parsed through the one bounded parse
   * (`parseUpstreamJson`: `maxUpstreamJsonDepth`, then `upstream_too_deep`). Text that is not JSON throws a
   * `SyntaxError`, or, given `notJson`, a `model_error` with its code and message (the `SyntaxError` its cause).
   */
  json(text: string, notJson?: { code: string; message: string }): unknown {
    try {
      return parseUpstreamJson(text, this.limits);
    } catch (error) {
      if (error instanceof ResponsesError) {
        this.abort.cancel();
        throw this.failed(error);
      }
      if (notJson)
        throw new ResponsesError('model_error', notJson.code, notJson.message, null, undefined, { cause: error });
      throw error;
    }
  }

  /** An error body (`errorText`) as JSON through the same bounded parse; `undefined` when it is not JSON or too deep. */
  errorJson(text: string): unknown {
    try {
      return parseUpstreamJson(text, this.limits);
    } catch {
      return undefined;
    }
  }

  /** An error body: its first `MAX_ERROR_BODY_BYTES` (the rest is dropped with the connection); '' when it cannot be read. */
  async errorText(response: UpstreamResponse): Promise<string> {
    try {
      const body = await this.read(response, Math.min(MAX_ERROR_BODY_BYTES, this.limits.maxUpstreamBodyBytes), true);
      if (body.over) this.abort.cancel();
      return body.text;
    } catch {
      return '';
    }
  }

  /** The whole body through the fetch's own bounded read (`READ_WHOLE`), its failures those of `read`. */
  private readWhole(response: WholeBodyReading, max: number): Promise<BoundedText> {
    let reading: Promise<BoundedText>;
    try {
      reading = response[READ_WHOLE](max, this.restartIdle);
    } catch (error) {
      return Promise.reject(this.readFailure(error));
    }
    return reading.then(undefined, (error: unknown) => {
      throw this.readFailure(error);
    });
  }

  private readonly restartIdle = () => {
    this.activeAt = clock.now();
  };

  /** A body read that failed: the call's own stop, or the connection broke before the answer ended. */
  private readFailure(error: unknown): ResponsesError {
    if (this.stopped || this.clientWent) return this.failed(this.failure(error));
    return this.broken(
      'upstream_response_cut',
      'The upstream connection broke before its answer ended; the answer is incomplete.',
      error,
    );
  }

  /** The body up to `max` bytes through the body's reader (`readBounded`), each chunk restarting the idle timer. */
  private read(response: UpstreamResponse, max: number, keepStart: boolean): Promise<BoundedText> {
    return readBounded(response, max, keepStart, this.restartIdle, (error) => this.readFailure(error));
  }

  /**
   * Starts reading an SSE body: `nextFrames` gives its frames as the chunks complete them; `release` the reading
   * (in a `finally`) when the caller stops before the end. It ends when the body ends, when `complete()` says the
   * answer is whole (the rest of the body is let go), or when the client goes away (check `clientGone`). Only
   * events restart the idle timer, and not those `keepAlive` says are keep-alives (Anthropic's `ping`). A line
   * or event over `maxUpstreamEventBytes` drops the connection and fails with `upstream_event_too_large`, a
   * stream over `maxUpstreamStreamBytes` in all with `upstream_response_too_large`; a connection that breaks
   * before the answer is complete fails with `upstream_stream_cut`. Not an async generator: its `next()`, its
   * `yield` (which awaits the batch) and the result object were allocations on every read of a streamed turn.
   */
  frames(response: UpstreamResponse, complete: () => boolean, keepAlive?: (frame: SSEFrame) => boolean): FrameReading {
    if (!response.body)
      throw new ResponsesError('model_error', 'upstream_invalid_response', 'The upstream answered without a body.');
    const decoder = createSSEFrameDecoder({ maxFrameBytes: this.limits.maxUpstreamEventBytes });
    return new FrameReading(response.body.getReader(), decoder, complete, keepAlive);
  }

  /** The next frames of `reading` (a non-empty array), or undefined once it has ended (see `frames`). */
  async nextFrames(reading: FrameReading): Promise<SSEFrame[] | undefined> {
    if (reading.released) return undefined;
    const reader = reading.reader;
    if (reading.handedOut) {
      reading.handedOut = false;
      if (reading.complete()) return reading.letGo(this.abort);
    }
    try {
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          // An upstream that said it was done and then hung or dropped the connection has still answered.
          if (reading.complete() || this.clientWent) return reading.release();
          if (this.stopped) throw this.failed(this.failure(error));
          throw this.broken(
            'upstream_stream_cut',
            'The upstream connection broke mid-stream; the answer is incomplete.',
            error,
          );
        }
        if (next.done) return reading.release();
        reading.total += next.value.byteLength;
        const maxTotal = this.limits.maxUpstreamStreamBytes;
        if (reading.total > maxTotal) {
          this.abort.cancel();
          throw this.failed(streamTooLarge(maxTotal));
        }
        let frames: SSEFrame[];
        try {
          frames = reading.decoder.decode(next.value);
        } catch (error) {
          if (!(error instanceof SSEFrameError)) throw error;
          this.abort.cancel();
          throw this.failed(eventTooLarge(this.limits.maxUpstreamEventBytes, error.byteOffset));
        }
        if (frames.length > 0) {
          this.answered();
          // Keep-alive events (a family's pings) are no more activity than SSE comments are.
          const keepAlive = reading.keepAlive;
          if (!keepAlive || !frames.every(keepAlive)) this.activeAt = clock.now();
          reading.handedOut = true;
          return frames;
        }
        if (reading.complete()) return reading.letGo(this.abort);
      }
    } catch (error) {
      // A failed reading lets go of its reader as it ends, as a finished one does.
      reading.release();
      throw error;
    }
  }

  /**
   * Ends the call: the timers stop; unless the answer was read to its end, the upstream connection is
   * dropped. The client span ends with the status, or the call's failure (`cancelled` when the client left).
   */
  close(): void {
    clearTimeout(this.timer);
    this.answered();
    this.stopListening();
    if (!this.finished) this.abort.cancel();
    if (this.span) {
      endClientSpan(this.span, this.status, this.spanError ?? (this.clientWent ? CLIENT_GONE : undefined));
      this.span = undefined;
    }
  }
}

const noop = () => {};
