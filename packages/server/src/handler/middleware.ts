import { randomId } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import type { Admission } from '../admission.js';
import { answerSeries } from '../telemetry/answer-metrics.js';
import { instruments } from '../telemetry/metrics.js';
import type { BoundHistogram } from '../telemetry/aggregation.js';
import {
  errorResponse,
  type ServiceRequest,
  type ServiceResponse,
  type StreamEndWatcher,
  watchStreamEnd,
} from '../exchange.js';
import { traceIdOf } from '../telemetry/tracing.js';
import type { TurnFacts, TurnFailure } from '../telemetry/attributes.js';
import type { TurnOptions, TurnRunner } from '../responses/runner.js';
import { tooLarge } from './body.js';
import { clock } from '../telemetry/clock.js';

export { type AnswerStage, compose, type Middleware, type ServiceHandler } from './compose.js';
import type { AnswerStage, Middleware, ServiceHandler } from './compose.js';

/** Every answer carries `x-request-id` (clients put it in their errors; logs name it). */
export function requestIds(): AnswerStage {
  return {
    // Known before the request is served, so logs and spans inside can name it.
    before: (request) => {
      request.id = request.header('x-request-id') ?? randomId('req');
    },
    answered: (request, response) => {
      response.headers['x-request-id'] = request.id!;
      return response;
    },
  };
}

/**
 * What the logging hook hears about each request once it is answered. Never a header, a key or content:
 * the route and the model name, numbers and ids.
 */
export interface RequestLog {
  /** The HTTP method; `response.create` for a WebSocket turn. */
  method: string;
  /** The request path, without the query. */
  path: string;
  /** The route template matched (`/v1/responses/:id`); undefined when no route matched. */
  route?: string;
  /** The answer's HTTP status. */
  status: number;
  /** Until the answer was written: for an event stream, until its last event. */
  durationMs: number;
  /** The answer's `x-request-id` (a WebSocket turn gets its own). */
  requestId: string | undefined;
  /** The model that answered a turn (the response's model, else the one asked for). */
  model?: string;
  /** The turn's input tokens, when a turn ran and reported usage. */
  inputTokens?: number;
  /** The turn's output tokens, when a turn ran and reported usage. */
  outputTokens?: number;
  /** The request's trace, when an OpenTelemetry SDK records or propagates it. */
  traceId?: string;
  /**
   * How the turn failed, when a turn ran and failed: before its first event (a JSON error) or after (a
   * stream that ends `response.failed`, whose `status` above is 200). Its message is redacted.
   */
  failure?: TurnFailure;
  /** The upstream that answered, when a fallback route chose among several. */
  upstream?: string;
  /**
   * A background turn's own entry (`background: true` without `stream`), once it has ended: the method, path
   * and request id of the request that started it (answered 200 before), the time from that request to the
   * turn's end, and its facts (`failure` when it failed).
   */
  background?: true;
}

/**
 * What an `onRequest` hook may carry to hear only some failed turns: the logging middleware asks
 * `failedTurns` of a turn's failure before it builds an entry, so any other request costs the hook nothing
 * (the CLI's default log, `failureLogger`, hears only what an operator must see).
 */
export interface FailedTurnsFilter {
  /** Whether the hook hears this failed turn; requests without a failed turn are not logged at all. */
  readonly failedTurns?: (failure: TurnFailure) => boolean;
}

/**
 * Calls `onRequest` once per answered request (event streams: once the stream has ended, with the turn's
 * usage), and once more for a background turn the request started, when that turn has ended; only for the
 * failed turns it asks for when it carries `failedTurns` (see `FailedTurnsFilter`).
 */
export function logging(onRequest: ((entry: RequestLog) => void) & FailedTurnsFilter): AnswerStage {
  const log = (request: ServiceRequest, status: number, started: number) => {
    if (hears(onRequest, request.turn)) onRequest(logEntry(request, status, started, request.turn));
    const background = request.backgroundTurn;
    // No request is left to fail when the hook throws here: it is reported, not left unhandled.
    if (background)
      void background.ended
        .then(() => {
          if (hears(onRequest, background.facts))
            onRequest(
              Object.assign(logEntry(request, status, started, background.facts), { background: true as const }),
            );
        })
        .catch((error: unknown) => console.error(error));
  };
  return {
    answered: (request, response, started) => {
      const body = response.body;
      if (body === null || typeof body === 'string') {
        log(request, response.status, started);
        return response;
      }
      return watchStreamEnd(response, body, new LoggedStreamEnd(log, request, response.status, started));
    },
  };
}

/** Logs a streamed answer once its stream has ended, however it ended (a watcher: no wrapper and closures per answer). */
class LoggedStreamEnd implements StreamEndWatcher {
  constructor(
    private readonly log: (request: ServiceRequest, status: number, started: number) => void,
    private readonly request: ServiceRequest,
    private readonly status: number,
    private readonly started: number,
  ) {}

  streamEnded(): void {
    this.log(this.request, this.status, this.started);
  }
}

/** Whether a hook hears a request whose turn told `turn`: every request, or only the failed turns it asks for. */
function hears(onRequest: FailedTurnsFilter, turn: TurnFacts | undefined): boolean {
  const filter = onRequest.failedTurns;
  return filter === undefined || (turn?.failure !== undefined && filter(turn.failure));
}

/** A request's log entry, built only for a request that is logged (its trace id read then: it does not change). */
function logEntry(request: ServiceRequest, status: number, started: number, turn: TurnFacts | undefined): RequestLog {
  return {
    method: request.method,
    path: request.path,
    route: request.route,
    status,
    durationMs: clock.now() - started,
    requestId: request.id,
    model: turn?.responseModel ?? turn?.requestModel,
    inputTokens: turn?.inputTokens,
    outputTokens: turn?.outputTokens,
    traceId: traceIdOf(request.traceContext),
    failure: turn?.failure,
    upstream: turn?.upstream,
  };
}

/**
 * The WebSocket side of `logging`: one entry per `response.create` turn on a connection (method
 * `response.create`, the upgrade's path as path and route, a request id of its own; status 200 for a
 * response, failed ones included, as an event stream's; the error's status for a refused turn).
 */
export function turnLogging(
  runner: TurnRunner,
  onRequest: ((entry: RequestLog) => void) & FailedTurnsFilter,
  path: string,
): TurnRunner {
  return Object.assign({}, runner, {
    turn: async (raw: unknown, options: TurnOptions) => {
      const started = clock.now();
      const facts: TurnFacts = options.facts ?? {};
      const log = (status: number) => {
        if (!hears(onRequest, facts)) return;
        onRequest({
          method: 'response.create',
          path,
          route: path,
          status,
          durationMs: clock.now() - started,
          requestId: randomId('req'),
          model: facts.responseModel ?? facts.requestModel,
          inputTokens: facts.inputTokens,
          outputTokens: facts.outputTokens,
          traceId: traceIdOf(options.traceContext),
          failure: facts.failure,
          upstream: facts.upstream,
        });
      };
      try {
        const outcome = await runner.turn(raw, Object.assign({}, options, { facts }));
        log(200);
        return outcome;
      } catch (error) {
        log(error instanceof ResponsesError ? error.status : 500);
        throw error;
      }
    },
  });
}

/**
 * The answer header with the server's own time for a turn request, in milliseconds: from the request to its
 * answer's headers, minus the time its upstream calls kept it waiting (`TurnFacts.upstreamMs`). For an event
 * stream it covers the time to the headers only (the turn's first events included).
 */
export const OVERHEAD_HEADER = 'openresponses-overhead-duration-ms';

/**
 * Marks each turn's answer with its overhead (`OVERHEAD_HEADER`) and, while metrics are on, records it
 * (`openresponses.server.overhead.duration`) and `http.server.request.duration` of every request, by method,
 * route template and status (an event stream when it has ended).
 */
export function httpMetrics(): AnswerStage {
  return {
    answered: (request, response, started) => {
      const meters = instruments();
      const facts = request.turn;
      if (facts === undefined && meters === undefined) return response;
      // One clock read for the overhead and a whole answer's duration (~65 ns a read): both end here.
      const now = clock.now();
      // The overhead and the duration share their labels: their series looked up once.
      const series = meters && answerSeries(meters, request.method, request.route, response.status);
      if (facts !== undefined) {
        const overheadMs = Math.max(0, now - started - (facts.upstreamMs ?? 0));
        response.headers[OVERHEAD_HEADER] = thousandthsText(overheadMs);
        if (series) series.overhead.record(overheadMs / 1000);
      }
      if (!series) return response;
      const body = response.body;
      if (body === null || typeof body === 'string') {
        series.duration.record((now - started) / 1000);
        return response;
      }
      return watchStreamEnd(response, body, new StreamDuration(series.duration, started));
    },
  };
}

/**
 * `ms.toFixed(3)`, the same text: `toFixed` is a call into V8's runtime (~1.1k instructions a turn, callgrind), this
 * an integer's digits. A time whose thousandths lie within a hair of a tie, where the product's rounding could pick
 * the other side than the exact decimal does, is left to `toFixed`, as is a negative or huge one.
 */
export function thousandthsText(ms: number): string {
  const scaled = ms * 1000;
  const rounded = Math.round(scaled);
  if (!(scaled >= 0 && scaled < 1e12) || Math.abs(scaled - rounded) > 0.499) return ms.toFixed(3);
  const whole = Math.floor(rounded / 1000);
  const thousandths = rounded - whole * 1000;
  return `${whole}.${thousandths < 10 ? '00' : thousandths < 100 ? '0' : ''}${thousandths}`;
}

/**
 * Records an event stream's duration once it has ended, however it ended (a watcher told by the stream's own frame:
 * no frame of its own, which was two promises more a streamed answer).
 */
class StreamDuration implements StreamEndWatcher {
  constructor(
    private readonly duration: BoundHistogram,
    private readonly started: number,
  ) {}

  streamEnded(): void {
    this.duration.record((clock.now() - this.started) / 1000);
  }
}

/** Anything thrown becomes the spec's error object; what is not a ResponsesError is a server bug and is logged. */
export function errorMapping(onUnexpected: (error: unknown) => void = (error) => console.error(error)): AnswerStage {
  return {
    answered: (_request, response) => response,
    failed: (_request, error) => {
      if (!(error instanceof ResponsesError)) onUnexpected(error);
      return errorResponse(error);
    },
  };
}

/** The CORS headers every answer carries: `corsHeaders` marks answers, `corsPreflight` answers preflights. */
export type CorsHeaderValues = {
  'access-control-allow-origin': string;
  'access-control-allow-headers': string;
  'access-control-allow-methods': string;
  'access-control-expose-headers': string;
};

/** The CORS headers for `options`, with `allowHeaders` as the request headers browsers may send. */
export function corsHeaderValues(
  options: true | { origin: string },
  allowHeaders: readonly string[],
): CorsHeaderValues {
  return {
    'access-control-allow-origin': options === true ? '*' : options.origin,
    'access-control-allow-headers': allowHeaders.join(', '),
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-expose-headers': `x-request-id, retry-after, ${OVERHEAD_HEADER}`,
  };
}

/**
 * Marks every answer, errors and preflights included, with the CORS headers: by name, four stores whose
 * transitions V8 caches, where `Object.assign`'s generic copy was ~970 instructions an answer (callgrind).
 */
export function corsHeaders(values: Readonly<CorsHeaderValues>): AnswerStage {
  const origin = values['access-control-allow-origin'];
  const allowHeaders = values['access-control-allow-headers'];
  const allowMethods = values['access-control-allow-methods'];
  const exposeHeaders = values['access-control-expose-headers'];
  return {
    answered: (_request, response) => {
      const headers = response.headers;
      headers['access-control-allow-origin'] = origin;
      headers['access-control-allow-headers'] = allowHeaders;
      headers['access-control-allow-methods'] = allowMethods;
      headers['access-control-expose-headers'] = exposeHeaders;
      return response;
    },
  };
}

/** Answers preflights (before the origin check and authentication: browsers send no credentials there). */
export function corsPreflight(headers: Readonly<Record<string, string>>): Middleware {
  return (request, next) =>
    request.method === 'OPTIONS'
      ? Promise.resolve({ status: 204, headers: { ...headers }, body: null })
      : next(request);
}

/**
 * Refuses a body whose declared length is over the limit before anything reads it; bodies without a
 * declared length are cut at the limit by `readBody`.
 */
export function bodyLimit(maxBytes: number): Middleware {
  return (request, next) => {
    const declared = request.header('content-length');
    if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
    return next(request);
  };
}

/**
 * Admission of HTTP requests (runs after authentication): every request of a tenant takes from its rate,
 * and a request that runs a turn (`takesTurn`) takes a turn slot until its answer, or its whole stream, has
 * been written. Reads, deletes and cancels take none, so a tenant at its limit can always cancel its own work.
 */
export function admission(admitted: Admission, takesTurn: (request: ServiceRequest) => boolean): Middleware {
  // Not an async function: a request that takes no turn passes with no extra promise.
  return (request, next) => {
    // Public routes (health checks) have no tenant and are never limited.
    const owner = request.owner;
    if (owner === undefined) return next(request);
    admitted.takeRate(owner);
    return takesTurn(request) ? turnRequest(admitted.startTurn(owner), request, next) : next(request);
  };
}

/** A request that holds a turn slot until its answer, or its whole stream, has been written (`release`). */
async function turnRequest(release: () => void, request: ServiceRequest, next: ServiceHandler) {
  let response: ServiceResponse;
  try {
    response = await next(request);
  } catch (error) {
    release();
    throw error;
  }
  const body = response.body;
  if (body === null || typeof body === 'string') {
    release();
    return response;
  }
  // A stream's turn runs while it is written: it counts until the stream has ended, however it ended.
  return watchStreamEnd(response, body, { streamEnded: release });
}
