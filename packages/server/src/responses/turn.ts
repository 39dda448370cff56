import type { AnyStreamingEvent } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import type { Backpressure } from '../exchange.js';
import type { ModelPart } from '../models/provider.js';
import type { TurnMeter } from '../telemetry/metrics.js';
import type { PreparedTurn, TurnDependencies } from './turn/prepare.js';
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
  const metered = meter ? new MeteredParts(parts, meter) : undefined;
  const iterator = metered ?? parts;
  const started = (first: IteratorResult<ModelPart> | Error): StartedTurn =>
    new Started(turn, deps, options, iterator, first, request.upstream);
  let pending: ReturnType<PartIterator['next']>;
  try {
    pending = metered ? metered.nextObservedByCaller() : iterator.next();
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    return started(error as Error);
  }
  if (!(pending instanceof Promise)) return started(pending);
  const arrived = metered ? (first: IteratorResult<ModelPart>) => started(metered.observedAfterWait(first)) : started;
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
  ) {}

  run(onEvent?: (event: AnyStreamingEvent) => void, backpressure?: Backpressure): Pending<TurnResult> {
    const { turn, deps, options } = this;
    return streamTurn(turn, deps, options, onEvent, this.iterator, this.first, backpressure ?? options.backpressure);
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

/**
 * The model's parts as they come, telling `meter` of the first output and of the usage at `finish` (a class:
 * one object a turn, and one closure only where the parts wait; a promise more only where they wait anyway).
 * Whether the parts waited since the first output is noted, so that a finish that came with it (an upstream's
 * JSON answer is one batch of parts) shares its clock read.
 */
export class MeteredParts implements PartIterator {
  private first = true;
  private waited = false;
  private observe: ((result: IteratorResult<ModelPart>) => IteratorResult<ModelPart>) | undefined;

  constructor(
    private readonly parts: PartIterator,
    private readonly meter: TurnMeter,
  ) {}

  next(): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>> {
    const pending = this.parts.next();
    if (!(pending instanceof Promise)) return this.observed(pending);
    this.observe ??= (result) => this.observedAfterWait(result);
    return pending.then(this.observe);
  }

  /**
   * The next part like `next`, except that a part waited for is returned unobserved: the caller passes it to
   * `observedAfterWait` in its own continuation. `startTurn` reads the first part so, without the promise more
   * that `next` chains: with that promise on every turn's first (upstream) part, V8's allocation-site
   * pretenuring (its default) moved ~80 more allocation sites of the turn into old space (CLI with metrics on,
   * stored gateway JSON turns over HTTP: 84-103 sites tenured instead of 12-15, 7.0-7.7 against 3.5-3.7 KB
   * promoted a request).
   */
  nextObservedByCaller(): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>> {
    const pending = this.parts.next();
    return pending instanceof Promise ? pending : this.observed(pending);
  }

  /** A part that was waited for, observed (see `nextObservedByCaller`). */
  observedAfterWait(result: IteratorResult<ModelPart>): IteratorResult<ModelPart> {
    this.waited = true;
    return this.observed(result);
  }

  return(): unknown {
    return this.parts.return?.();
  }

  private observed(result: IteratorResult<ModelPart>): IteratorResult<ModelPart> {
    if (result.done) return result;
    const part = result.value;
    if (part.type === 'finish')
      this.meter.finished(part.usage.inputTokens, part.usage.outputTokens, !this.first && !this.waited);
    else if (this.first && isOutput(part.type)) {
      this.first = false;
      this.waited = false;
      this.meter.firstOutput();
    }
    return result;
  }
}

/**
 * Whether a part is output (a delta or a whole item): its type compared with each part type, interned strings
 * compared by reference, where a suffix test was a builtin call of ~190 instructions a turn (callgrind). Every
 * part type is named.
 */
function isOutput(type: ModelPart['type']): boolean {
  switch (type) {
    case 'text-delta':
    case 'item':
    case 'function-call-delta':
    case 'reasoning-delta':
    case 'reasoning-summary-delta':
    case 'refusal-delta':
      return true;
    case 'text-start':
    case 'text-end':
    case 'refusal-start':
    case 'refusal-end':
    case 'message-part-start':
    case 'text-annotation':
    case 'reasoning-start':
    case 'reasoning-summary-start':
    case 'reasoning-summary-end':
    case 'reasoning-end':
    case 'function-call-start':
    case 'function-call-end':
    case 'vendor-event':
    case 'finish':
    case 'error':
      return false;
    default:
      // A part type added to `ModelPart` fails to compile here until it is sorted.
      void (type satisfies never);
      return false;
  }
}
