// The chain's shapes and how it is put together: middleware (functions around the rest of the chain) and answer
// stages (what acts on every answer), composed once when the service is made (./middleware.ts has the layers).
import type { ServiceRequest, ServiceResponse } from '../exchange.js';
import { context } from '@opentelemetry/api';
import { contextManaged } from '../telemetry/span-scope.js';
import { clock } from '../telemetry/clock.js';

/** Serves a request: the router, or the rest of the middleware chain in front of it. */
export type ServiceHandler = (request: ServiceRequest) => Promise<ServiceResponse>;

/**
 * Runs around the rest of the chain: answers itself, or calls `next` and may change its answer.
 * Chains are composed once when the service is made, so a request allocates nothing for them.
 */
export type Middleware = (request: ServiceRequest, next: ServiceHandler) => Promise<ServiceResponse>;

/**
 * A layer that acts on every answer and never answers in the chain's place (request ids, metrics, the request
 * log, CORS headers, the error mapping). `compose` runs a run of neighbouring stages in one async frame, so a
 * request awaits once for all of them rather than once a layer; what each sees is what it would see as a
 * layer of its own.
 */
export interface AnswerStage {
  /** Before the inner chain runs, outermost stage first (what inner layers read: the request id). */
  before?(request: ServiceRequest): void;
  /** The inner chain's answer, changed or replaced, innermost stage first; `started` is when the run of stages began. */
  answered(request: ServiceRequest, response: ServiceResponse, started: number): ServiceResponse;
  /** What the inner chain threw, as an answer (the error mapping); a stage without it lets the error pass, as a layer that awaits would. */
  failed?(request: ServiceRequest, error: unknown): ServiceResponse;
  /** What the inner chain threw, seen as it passes (a stage without `failed`: the server span). */
  thrown?(request: ServiceRequest, error: unknown): void;
}

/** `first` runs first; its `next` is the second, and so on down to `handler` (neighbouring stages share one frame). */
export function compose(layers: readonly (Middleware | AnswerStage)[], handler: ServiceHandler): ServiceHandler {
  let next = handler;
  for (let end = layers.length; end > 0; ) {
    const layer = layers[end - 1]!;
    if (typeof layer === 'function') {
      const inner = next;
      next = (request) => layer(request, inner);
      end--;
      continue;
    }
    let start = end - 1;
    while (start > 0 && typeof layers[start - 1] !== 'function') start--;
    next = staged(layers.slice(start, end) as AnswerStage[], next);
    end = start;
  }
  return next;
}

/** One async frame for `stages` around `next`. */
function staged(stages: readonly AnswerStage[], next: ServiceHandler): ServiceHandler {
  return async (request) => {
    const started = clock.now();
    for (const stage of stages) stage.before?.(request);
    let response: ServiceResponse | undefined;
    let error: unknown;
    try {
      // The request's trace current for an application's context manager (the server span's stage sets it).
      const active = request.traceContext;
      response = await (active !== undefined && contextManaged()
        ? context.with(active, next, undefined, request)
        : next(request));
    } catch (thrown) {
      error = thrown;
    }
    for (let i = stages.length - 1; i >= 0; i--) {
      const stage = stages[i]!;
      try {
        // What a stage throws is what the stages outside it see, as layers that await would.
        if (response !== undefined) response = stage.answered(request, response, started);
        else if (stage.failed) response = stage.failed(request, error);
        else stage.thrown?.(request, error);
      } catch (thrown) {
        response = undefined;
        error = thrown;
      }
    }
    if (response === undefined) throw error;
    return response;
  };
}
