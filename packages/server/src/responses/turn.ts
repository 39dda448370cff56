import type { AnyStreamingEvent } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import type { Backpressure } from '../exchange.js';
import type { ModelPart } from '../models/provider.js';
import type { TurnMeter } from '../telemetry/metrics.js';
import type { PreparedTurn, TurnDependencies } from './turn/prepare.js';
import { PartMeter } from './turn/part-meter.js';
import { type PartIterator, type Pending, readParts } from './turn/parts.js';
import { providerRequest } from './turn/provider-request.js';
import { type RunOptions, streamTurn, type TurnResult } from './turn/stream.js';

// A turn in stages, one module each under turn/: prepare (validation, tool policy, orphan outputs,
// truncation), the provider request, stream (parts -> ordered events, output budget, cancellation), echo.

/** A turn whose model stream has begun: its first part has arrived (or the stream ended at once). */
export interface StartedTurn {
  /** Streams the rest of the turn through the events writer (its result at once when nothing waited). */
  run(onEvent?: (event: AnyStreamingEvent) => void, backpressure?: Backpressure): Pending<TurnResult>;
  /** The upstream that answered, when the provider chose among several (a fallback route). */
  readonly upstream?: string;
}

/**
 * Starts the model on a prepared turn and waits for its first part, so that a provider failing before
 * it produced anything (an upstream's 429 with `Retry-After`, a refused key) is answered as a plain
 * error (thrown here) instead of a response that starts and then fails. A provider whose first part is
 * there at once (the embedded model) gets its turn back at once, without a promise.
 */
export function startTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: Omit<RunOptions, 'onEvent'> = {},
  meter?: TurnMeter,
): StartedTurn | Promise<StartedTurn> {
  const request = providerRequest(
    turn.request,
    options.cancellation,
    !options.wholeDeltas,
    deps.sealer,
    options.traceContext,
    options.facts,
  );
  const parts = readParts(turn.provider.generate(request));
  const meterParts = meter ? new PartMeter(meter) : undefined;
  const started = (first: IteratorResult<ModelPart> | Error): StartedTurn =>
    new Started(turn, deps, options, parts, first, request.upstream, meterParts);
  let pending: ReturnType<PartIterator['next']>;
  try {
    pending = parts.next();
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    return started(error as Error);
  }
  if (!(pending instanceof Promise)) return started(meterParts ? meterParts.observed(pending) : pending);
  // A waited first part is observed in this continuation, not in a `.then` of its own: with that promise more on
  // every upstream turn, V8's allocation-site pretenuring moved ~80 more of the turn's sites into old space (f5de2ac).
  const arrived = meterParts
    ? (first: IteratorResult<ModelPart>) => started(meterParts.observedAfterWait(first))
    : started;
  return pending.then(arrived, (error: unknown) => {
    if (error instanceof ResponsesError) throw error;
    return started(error as Error);
  });
}

/** A started turn (a class: `run` is on the prototype, not a closure made per turn). */
class Started implements StartedTurn {
  constructor(
    private readonly turn: PreparedTurn,
    private readonly deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
    private readonly options: Omit<RunOptions, 'onEvent'>,
    private readonly iterator: PartIterator,
    private readonly first: IteratorResult<ModelPart> | Error,
    readonly upstream: string | undefined,
    private readonly meterParts: PartMeter | undefined,
  ) {}

  run(onEvent?: (event: AnyStreamingEvent) => void, backpressure?: Backpressure): Pending<TurnResult> {
    const { turn, deps, options } = this;
    return streamTurn(
      turn,
      deps,
      options,
      onEvent,
      this.iterator,
      this.first,
      backpressure ?? options.backpressure,
      this.meterParts,
    );
  }
}

/**
 * Runs a prepared turn through the model and the events writer (the one way events are made), so the
 * JSON answer, the SSE stream and the WebSocket stream of a turn are the same response.
 */
export async function runTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: RunOptions = {},
): Promise<TurnResult> {
  return (await startTurn(turn, deps, options)).run(options.onEvent);
}
