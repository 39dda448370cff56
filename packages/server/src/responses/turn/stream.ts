import type { Context } from '@opentelemetry/api';
import { type AnyStreamingEvent, createStreamWriter, type StreamWriter } from '@openresponses/events';
import type { ResponseResource, Usage } from '@openresponses/types';
import { ResponsesError } from '../../errors.js';
import type { Backpressure } from '../../exchange.js';
import { DEFAULT_LIMITS } from '../../limits.js';
import type { ModelPart, ModelUsage } from '../../models/provider.js';
import type { Cancellation } from '../../cancellation.js';
import { redactedError, redactSecretShapes } from '../../redaction.js';
import type { TurnFacts } from '../../telemetry/attributes.js';
import { initialResponse } from './echo.js';
import { beginItem, type Lane, type LaneTurn, type OpenItem } from './lanes.js';
import { outputBytesOf } from './output-budget.js';
import type { PartMeter } from './part-meter.js';
import { isItemEnd, laneKey, noResult, type PartIterator, type Pending, stopParts, tokensOf } from './parts.js';
import type { PreparedTurn, TurnDependencies } from './prepare.js';

export interface RunOptions {
  onEvent?: (event: AnyStreamingEvent) => void;
  /**
   * Nobody watches the deltas (a non-streaming answer): providers are told (`request.stream: false`)
   * and may send each text whole. The response is the same; a fraction of the events are made.
   */
  wholeDeltas?: boolean;
  /** Stops the turn when the client goes away. */
  cancellation?: Cancellation;
  /** Awaited before each part: pauses the turn while the client is behind on reading (see `ServiceEventStream`). */
  backpressure?: Backpressure;
  now?: () => number;
  /** The OpenTelemetry context of the turn's span: the provider's upstream calls are its children. */
  traceContext?: Context;
  /** The turn's facts: its upstream calls add the time they kept it waiting (`upstreamMs`). */
  facts?: Pick<TurnFacts, 'upstreamMs'>;
}

/** The outcome of a turn: the final response, and the error when it failed. */
export interface TurnResult {
  response: ResponseResource;
  error?: ResponsesError;
}

/** A lane whose item is open in the writer. */
interface OpenLane extends OpenItem {
  lane: Lane;
}

export function streamTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: Omit<RunOptions, 'onEvent'>,
  onEvent: ((event: AnyStreamingEvent) => void) | undefined,
  iterator: PartIterator,
  first: IteratorResult<ModelPart> | Error,
  backpressure: Backpressure | undefined,
  meter?: PartMeter,
): Pending<TurnResult> {
  return new TurnStream(turn, deps, options, onEvent, iterator, meter).run(first, backpressure);
}

/**
 * One turn's parts into the writer: its lanes, the queue of lanes waiting for the open one, its meters.
 * A class, not closures: a turn makes one object rather than a closure per step.
 */
class TurnStream implements LaneTurn {
  readonly writer: StreamWriter;
  private readonly request: PreparedTurn['request'];
  /** Function calls started and kept (within `max_tool_calls`). */
  private calls = 0;
  /** The turn's output meter: every part's bytes (output-budget.ts) and each sealed reasoning copy. */
  private outputBytes = 0;
  /** The deltas so far, counted only when a turn ending early reports them (a finished turn reports its provider's usage). */
  private readonly deltas: string[] = [];
  /** Every call the model starts, those dropped past `max_tool_calls` too: each costs the server work. */
  private callsStarted = 0;
  /** Lanes started and not ended, by key; `null` marks a call dropped past `max_tool_calls`. */
  private readonly lanes = new Map<string, Lane | null>();
  /** Lanes waiting for the open one to end, in the order they started (a queue read from `waitingHead`: linear, no shift). */
  private readonly waiting: Array<Lane | undefined> = [];
  private waitingHead = 0;
  private open: OpenLane | undefined;

  constructor(
    readonly turn: PreparedTurn,
    readonly deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
    private readonly options: Omit<RunOptions, 'onEvent'>,
    onEvent: ((event: AnyStreamingEvent) => void) | undefined,
    private readonly iterator: PartIterator,
    /** Shown each part after the first (`startTurn` showed it that one) as it arrives, before the turn waits for the client. */
    private readonly meter: PartMeter | undefined,
  ) {
    this.request = turn.request;
    const now = options.now ?? unixSeconds;
    // Without a listener (a JSON answer) the writer builds no events: it edits the response in place.
    this.writer = createStreamWriter({ response: initialResponse(turn, now()), onEvent, now });
    this.writer.start();
  }

  charge(bytes: number): void {
    this.outputBytes += bytes;
  }

  // The one way a turn's failure leaves (the stream, the stored response, the JSON answer): through the serving
  // provider's redactor, whatever the family, since a message may quote the upstream (a tool name, its words).
  // It carries the usage so far too: agents (the Codex CLI) read usage from every terminal event.
  private failWith(raw: ResponsesError): TurnResult {
    const provider = this.turn.provider;
    const error = redactedError(raw, (text) => (provider.redact ? provider.redact(text) : redactSecretShapes(text)));
    return {
      response: this.writer.fail(
        { type: error.type, code: error.code, message: error.message, param: error.param },
        { usage: usageOf({ inputTokens: this.turn.inputTokens, outputTokens: tokensOf(this.deltas) }) },
      ),
      error,
    };
  }

  // The lane steps below answer `Pending`: undefined when done at once (every step but sealing a reasoning
  // item), so a part costs no promise and no microtask unless something really waits.

  private nextWaiting(): Lane | undefined {
    const waiting = this.waiting;
    if (this.waitingHead === waiting.length) return undefined;
    const lane = waiting[this.waitingHead];
    waiting[this.waitingHead++] = undefined;
    if (this.waitingHead === waiting.length) waiting.length = this.waitingHead = 0;
    return lane;
  }

  /** Opens lanes from the queue until one stays open (a whole item, or one whose end was held, closes at once). */
  private openNext(): Pending {
    while (!this.open) {
      const lane = this.nextWaiting();
      if (!lane) return undefined;
      const item = beginItem(lane.start, this);
      if (!item) continue;
      this.open = { lane, apply: item.apply, close: item.close };
      if (lane.held.length === 0) continue;
      const delivering = this.deliverAll(lane.held.splice(0), 0);
      if (delivering) return delivering.then(() => this.openNext());
    }
    return undefined;
  }

  /** Delivers `parts` from `from` on, in order. */
  private deliverAll(parts: ModelPart[], from: number): Pending {
    for (let i = from; i < parts.length; i++) {
      const delivering = this.deliver(parts[i]!);
      if (delivering) return delivering.then(() => this.deliverAll(parts, i + 1));
    }
    return undefined;
  }

  /** Sends a part to the open lane; its end closes it and opens the next waiting lane. */
  private deliver(part: ModelPart): Pending {
    const current = this.open!;
    if (!isItemEnd(part.type)) {
      current.apply(part);
      return undefined;
    }
    const closing = current.close(part);
    if (closing) return closing.then(() => this.closed(current.lane));
    return this.closed(current.lane);
  }

  private closed(lane: Lane): Pending {
    this.lanes.delete(lane.key);
    this.open = undefined;
    return this.openNext();
  }

  private enqueue(lane: Lane): Pending {
    this.waiting.push(lane);
    return this.open ? undefined : this.openNext();
  }

  /** Ends what the provider left open, in order. */
  private closeAll(): Pending {
    while (this.open) {
      const delivering = this.deliver(CLOSE_OPEN);
      if (delivering) return delivering.then(() => this.closeAll());
    }
    return undefined;
  }

  /** The end of a turn whose provider finished (what it left open is closed first). */
  private finished(usage: ModelUsage): TurnResult {
    if (this.request.toolPolicy.mode === 'required' && this.calls === 0)
      return this.failWith(
        new ResponsesError(
          'model_error',
          'tool_call_required',
          'tool_choice requires a tool call, and the model made none.',
        ),
      );
    return { response: this.writer.complete({ usage: usageOf(usage) }) };
  }

  /** Handles one part; returns the result when the turn ended. */
  private handle(part: ModelPart): Pending<TurnResult | undefined> {
    switch (part.type) {
      case 'finish': {
        if (part.reason === 'length' || part.reason === 'content_filter')
          return {
            response: this.writer.incomplete(part.reason === 'length' ? 'max_output_tokens' : 'content_filter', {
              usage: usageOf(part.usage),
            }),
          };
        if (part.reason === 'error')
          return this.failWith(new ResponsesError('model_error', 'model_failed', 'The model stopped with an error.'));
        const closing = this.closeAll();
        return closing ? closing.then(() => this.finished(part.usage)) : this.finished(part.usage);
      }
      case 'error':
        return this.failWith(new ResponsesError('model_error', part.code, part.message));
      case 'vendor-event':
        this.writer.emitVendorEvent(part.event);
        return undefined;
      case 'item':
        return noResult(this.enqueue({ key: '', start: part, held: [] }));
      case 'text-start':
      case 'refusal-start':
      case 'reasoning-start':
      case 'function-call-start': {
        const key = laneKey(part);
        if (this.lanes.has(key)) throw invalidStream(`The model started '${part.id}' (${part.type}) twice.`);
        if (part.type === 'function-call-start') {
          // tool_choice and allowed_tools are hard constraints, whatever the provider does.
          if (!this.request.toolPolicy.allowed.includes(part.name))
            return this.failWith(
              new ResponsesError(
                'model_error',
                'tool_not_allowed',
                `The model called '${part.name}', which tool_choice does not allow.`,
              ),
            );
          if (this.calls >= (this.request.maxToolCalls ?? Infinity)) {
            this.lanes.set(key, null);
            return undefined;
          }
          this.calls++;
        }
        const lane: Lane = { key, start: part, held: [] };
        this.lanes.set(key, lane);
        return noResult(this.enqueue(lane));
      }
      default: {
        const key = laneKey(part);
        const lane = this.lanes.get(key);
        if (lane === undefined)
          throw invalidStream(`The model sent ${part.type} for '${part.id}', which it had not started.`);
        if (lane === null) {
          if (isItemEnd(part.type)) this.lanes.delete(key);
        } else if (this.open?.lane === lane) return noResult(this.deliver(part));
        else lane.held.push(part);
        return undefined;
      }
    }
  }

  /**
   * Runs the turn to its end. Synchronous while nothing waits (the embedded model's parts are all there and
   * nobody applies backpressure): the result itself, with no promise and no microtask; from the first wait on,
   * `resume` carries on in one async frame.
   */
  run(first: Next, backpressure: Backpressure | undefined): Pending<TurnResult> {
    let next = first;
    try {
      for (;;) {
        const behind = next instanceof Error ? undefined : backpressure?.();
        if (behind) return this.resume(next, backpressure, behind);
        const handled = this.take(next);
        if (handled instanceof Promise) return this.resume(next, backpressure, undefined, handled);
        if (handled) return this.ended(handled);
        const pending = this.advance();
        if (pending instanceof Promise) return this.resume(pending, backpressure);
        next = pending;
      }
    } catch (error) {
      return this.broken(error);
    }
  }

  /** `run` from a wait on: the client catching up (`behind`), a part's work (`handling`), or the next part. */
  private async resume(
    waitingFor: Next | Promise<Next>,
    backpressure: Backpressure | undefined,
    behind?: Promise<void>,
    handling?: Promise<TurnResult | undefined>,
  ): Promise<TurnResult> {
    let next = waitingFor;
    try {
      for (;;) {
        if (handling) {
          const result = await handling;
          handling = undefined;
          if (result) return this.ended(result);
          next = this.advance();
        }
        if (next instanceof Promise) {
          try {
            next = await next;
            if (this.meter && !(next instanceof Error)) this.meter.observedAfterWait(next);
          } catch (error) {
            next = error as Error;
          }
        }
        const waiting = behind ?? (next instanceof Error ? undefined : backpressure?.());
        behind = undefined;
        if (waiting) await waiting;
        const handled = this.take(next);
        if (handled instanceof Promise) handling = handled;
        else if (handled) return this.ended(handled);
        else next = this.advance();
      }
    } catch (error) {
      return this.broken(error);
    }
  }

  /**
   * One part (or the provider's failure, or its end): the turn's result when it ends here, else undefined
   * (a promise of either while its work waits). Throws what fails the turn as the model's failure.
   */
  private take(next: Next): Pending<TurnResult | undefined> {
    const cancellation = this.options.cancellation;
    // A provider that fails because the turn was cancelled reports the cancellation, not its own error.
    if (next instanceof Error && !cancellation?.cancelled) throw next;
    if (cancellation?.cancelled)
      return this.failWith(new ResponsesError('server_error', cancellation.code, cancellation.reason));
    if (next instanceof Error) throw next;
    if (next.done)
      return this.failWith(
        new ResponsesError('model_error', 'model_stream_ended', 'The model stream ended without a finish part.'),
      );
    const { maxOutputBytes, maxToolCallsPerResponse } = this.deps.limits ?? DEFAULT_LIMITS;
    // The server's caps on one response's output end it as max_output_tokens does, whatever the provider sends.
    const part = next.value;
    this.outputBytes += outputBytesOf(part);
    const delta = (part as { delta?: unknown }).delta;
    if (typeof delta === 'string') this.deltas.push(delta);
    if (
      this.outputBytes > maxOutputBytes ||
      (part.type === 'function-call-start' && ++this.callsStarted > maxToolCallsPerResponse)
    ) {
      const usage = { inputTokens: this.turn.inputTokens, outputTokens: tokensOf(this.deltas) };
      return { response: this.writer.incomplete('max_output_tokens', { usage: usageOf(usage) }) };
    }
    return this.handle(part);
  }

  /** The provider's next part, or its failure. */
  private advance(): Next | Promise<Next> {
    try {
      const next = this.iterator.next();
      if (this.meter && !(next instanceof Promise)) this.meter.observed(next);
      return next;
    } catch (error) {
      return error as Error;
    }
  }

  /** A turn that ended before its provider's stream did: the stream is stopped. */
  private ended(result: TurnResult): TurnResult {
    stopParts(this.iterator);
    return result;
  }

  /** A turn the provider (or its stream) broke. */
  private broken(error: unknown): TurnResult {
    stopParts(this.iterator);
    return this.failWith(
      error instanceof ResponsesError
        ? error
        : new ResponsesError('model_error', 'model_failed', `The model failed: ${(error as Error).message}`),
    );
  }
}

/** The provider's next part, or the error it failed with. */
type Next = IteratorResult<ModelPart> | Error;

/** What `closeAll` sends the open lane: an end part (any end closes the open item). */
const CLOSE_OPEN: ModelPart = { type: 'text-end', id: '' };
const unixSeconds = () => Math.floor(Date.now() / 1000);
const invalidStream = (message: string) => new ResponsesError('model_error', 'invalid_model_stream', message);

function usageOf(usage: ModelUsage): Usage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}
