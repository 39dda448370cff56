import type { Context } from '@opentelemetry/api';
import { type AnyStreamingEvent, createStreamWriter, randomId } from '@openresponses/events';
import type { LogProb, ResponseResource, Usage } from '@openresponses/types';
import { ResponsesError } from '../../errors.js';
import type { Backpressure } from '../../exchange.js';
import { DEFAULT_LIMITS } from '../../limits.js';
import type { ModelPart, ModelUsage } from '../../models/provider.js';
import { countTokens } from '../../models/item-text.js';
import type { Cancellation } from '../../cancellation.js';
import { redactSecretShapes } from '../../redaction.js';
import type { TurnFacts } from '../../telemetry/attributes.js';
import { initialResponse } from './echo.js';
import { outputBytesOf } from './output-budget.js';
import { isItemEnd, laneKey, noResult, type PartIterator, type Pending, stopParts } from './parts.js';
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

/** One output item the model streams: open in the writer, or waiting (its parts held) while another is open. */
interface Lane {
  key: string;
  /** Starts the item in the writer; returns how parts reach it and how it ends (nothing for a whole item). */
  begin(): { apply(part: ModelPart): void; close(end: ModelPart): void | Promise<void> } | undefined;
  /** Parts that arrived while the lane was waiting, replayed when it opens. */
  held: ModelPart[];
}

export async function streamTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: Omit<RunOptions, 'onEvent'>,
  onEvent: ((event: AnyStreamingEvent) => void) | undefined,
  iterator: PartIterator,
  first: IteratorResult<ModelPart> | Error,
  backpressure: Backpressure | undefined,
): Promise<TurnResult> {
  const { request } = turn;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  // Without a listener (a JSON answer) the writer builds no events: it edits the response in place.
  const writer = createStreamWriter({ response: initialResponse(turn, now()), onEvent, now });
  writer.start();
  const maxCalls = request.maxToolCalls ?? Infinity;
  const { include } = request;
  let calls = 0;
  /** The turn's output meter: every part's bytes (output-budget.ts) and each sealed reasoning copy. */
  let outputBytes = 0;
  /** Lanes started and not ended, by key; `null` marks a call dropped past `max_tool_calls`. */
  const lanes = new Map<string, Lane | null>();
  /** Lanes waiting for the open one to end, in the order they started (a queue read from `waitingHead`: linear, no shift). */
  const waiting: Array<Lane | undefined> = [];
  let waitingHead = 0;
  const nextWaiting = (): Lane | undefined => {
    if (waitingHead === waiting.length) return undefined;
    const lane = waiting[waitingHead];
    waiting[waitingHead++] = undefined;
    if (waitingHead === waiting.length) waiting.length = waitingHead = 0;
    return lane;
  };
  let open: { lane: Lane; apply(part: ModelPart): void; close(end: ModelPart): void | Promise<void> } | undefined;

  // The one way a turn's failure leaves (the stream, the stored response, the JSON answer): through the serving
  // provider's redactor, whatever the family, since a message may quote the upstream (a tool name, its words).
  // It carries the usage so far too: agents (the Codex CLI) read usage from every terminal event.
  const failWith = (raw: ResponsesError): TurnResult => {
    const error = redactedError(raw, (text) =>
      turn.provider.redact ? turn.provider.redact(text) : redactSecretShapes(text),
    );
    return {
      response: writer.fail(
        { type: error.type, code: error.code, message: error.message, param: error.param },
        { usage: usageOf({ inputTokens: turn.inputTokens, outputTokens }) },
      ),
      error,
    };
  };

  // The lane steps below answer `Pending`: undefined when done at once (every step but sealing a reasoning
  // item), so a part costs no promise and no microtask unless something really waits.

  /** Opens lanes from the queue until one stays open (a whole item, or one whose end was held, closes at once). */
  const openNext = (): Pending => {
    while (!open) {
      const lane = nextWaiting();
      if (!lane) return undefined;
      const streaming = lane.begin();
      if (!streaming) continue;
      open = { lane, apply: streaming.apply, close: streaming.close };
      const delivering = deliverAll(lane.held.splice(0), 0);
      if (delivering) return delivering.then(openNext);
    }
    return undefined;
  };

  /** Delivers `parts` from `from` on, in order. */
  const deliverAll = (parts: ModelPart[], from: number): Pending => {
    for (let i = from; i < parts.length; i++) {
      const delivering = deliver(parts[i]!);
      if (delivering) return delivering.then(() => deliverAll(parts, i + 1));
    }
    return undefined;
  };

  /** Sends a part to the open lane; its end closes it and opens the next waiting lane. */
  const deliver = (part: ModelPart): Pending => {
    const current = open!;
    if (!isItemEnd(part.type)) {
      current.apply(part);
      return undefined;
    }
    const closing = current.close(part);
    if (closing) return closing.then(() => closed(current.lane));
    return closed(current.lane);
  };

  const closed = (lane: Lane): Pending => {
    lanes.delete(lane.key);
    open = undefined;
    return openNext();
  };

  const enqueue = (lane: Lane): Pending => {
    waiting.push(lane);
    return open ? undefined : openNext();
  };

  /** Ends what the provider left open, in order. */
  const closeAll = (): Pending => {
    while (open) {
      const delivering = deliver({ type: 'text-end', id: '' });
      if (delivering) return delivering.then(closeAll);
    }
    return undefined;
  };

  const laneFor = (start: ModelPart): Lane['begin'] => {
    switch (start.type) {
      case 'text-start':
      case 'refusal-start':
        return () => {
          const message = writer.addMessage(start.type === 'text-start' && start.phase ? { phase: start.phase } : {});
          let part = start.type === 'text-start' ? message.addOutputText() : message.addRefusal();
          return {
            apply: (p) => {
              if (p.type === 'message-part-start') {
                part.done();
                part = p.kind === 'text' ? message.addOutputText() : message.addRefusal();
              } else if (p.type === 'text-annotation') part.annotate(p.annotation);
              else part.append((p as { delta: string }).delta, (p as { logprobs?: LogProb[] }).logprobs);
            },
            close: () => {
              part.done();
              message.done();
            },
          };
        };
      case 'reasoning-start':
        return () => {
          const reasoning = writer.addReasoning();
          const summaries: string[] = [];
          let content: string | null = null;
          let summary: ReturnType<typeof reasoning.addSummaryPart> | undefined;
          const openSummary = () => {
            summary = reasoning.addSummaryPart();
            summaries.push('');
            return summary;
          };
          return {
            apply: (p) => {
              if (p.type === 'reasoning-summary-start') openSummary();
              else if (p.type === 'reasoning-summary-delta') {
                (summary ?? openSummary()).append(p.delta);
                summaries[summaries.length - 1] += p.delta;
              } else if (p.type === 'reasoning-summary-end') {
                summary?.done();
                summary = undefined;
              } else if (p.type === 'reasoning-delta') {
                reasoning.appendContent(p.delta);
                content = (content ?? '') + p.delta;
              }
            },
            close: async (end) => {
              summary?.done();
              // On request (include), as the OpenAPI describes: most clients never send reasoning back. A
              // provider's state (a thinking signature) is also kept when the response is stored, so that a
              // previous_response_id continuation can send it back.
              const state = end.type === 'reasoning-end' ? end.state : undefined;
              if (!(include.includes('reasoning.encrypted_content') || (state && turn.body.store !== false))) {
                reasoning.done({});
                return;
              }
              const sealed = await deps.sealer.seal(
                state ? { summary: summaries, content, state } : { summary: summaries, content },
                'reasoning',
              );
              // The sealed copy reaches the client and the store too: charged like everything the turn emits.
              outputBytes += sealed.length;
              reasoning.done({ encrypted_content: sealed });
            },
          };
        };
      case 'function-call-start':
        return () => {
          const call = writer.addFunctionCall({ name: start.name, call_id: start.callId ?? randomId('call') });
          return { apply: (p) => call.appendArguments((p as { delta: string }).delta), close: () => call.done() };
        };
      default:
        throw new Error(`not a start part: ${start.type}`);
    }
  };

  /** The end of a turn whose provider finished (what it left open is closed first). */
  const finished = (usage: ModelUsage): TurnResult => {
    if (request.toolPolicy.mode === 'required' && calls === 0)
      return failWith(
        new ResponsesError(
          'model_error',
          'tool_call_required',
          'tool_choice requires a tool call, and the model made none.',
        ),
      );
    return { response: writer.complete({ usage: usageOf(usage) }) };
  };

  /** Handles one part; returns the result when the turn ended. */
  const handle = (part: ModelPart): Pending<TurnResult | undefined> => {
    switch (part.type) {
      case 'finish': {
        if (part.reason === 'length' || part.reason === 'content_filter')
          return {
            response: writer.incomplete(part.reason === 'length' ? 'max_output_tokens' : 'content_filter', {
              usage: usageOf(part.usage),
            }),
          };
        if (part.reason === 'error')
          return failWith(new ResponsesError('model_error', 'model_failed', 'The model stopped with an error.'));
        const closing = closeAll();
        return closing ? closing.then(() => finished(part.usage)) : finished(part.usage);
      }
      case 'error':
        return failWith(new ResponsesError('model_error', part.code, part.message));
      case 'vendor-event':
        writer.emitVendorEvent(part.event);
        return undefined;
      case 'item': {
        const { id, ...rest } = part.item;
        const item = Object.assign({}, rest, { id: id ?? randomId('item') });
        return noResult(enqueue({ key: '', held: [], begin: () => void writer.addItem(item).done() }));
      }
      case 'text-start':
      case 'refusal-start':
      case 'reasoning-start':
      case 'function-call-start': {
        const key = laneKey(part);
        if (lanes.has(key)) throw invalidStream(`The model started '${part.id}' (${part.type}) twice.`);
        if (part.type === 'function-call-start') {
          // tool_choice and allowed_tools are hard constraints, whatever the provider does.
          if (!request.toolPolicy.allowed.includes(part.name))
            return failWith(
              new ResponsesError(
                'model_error',
                'tool_not_allowed',
                `The model called '${part.name}', which tool_choice does not allow.`,
              ),
            );
          if (calls >= maxCalls) {
            lanes.set(key, null);
            return undefined;
          }
          calls++;
        }
        const lane: Lane = { key, held: [], begin: laneFor(part) };
        lanes.set(key, lane);
        return noResult(enqueue(lane));
      }
      default: {
        const key = laneKey(part);
        const lane = lanes.get(key);
        if (lane === undefined)
          throw invalidStream(`The model sent ${part.type} for '${part.id}', which it had not started.`);
        if (lane === null) {
          if (isItemEnd(part.type)) lanes.delete(key);
        } else if (open?.lane === lane) return noResult(deliver(part));
        else lane.held.push(part);
        return undefined;
      }
    }
  };

  const cancellation = options.cancellation;
  const { maxOutputBytes, maxToolCallsPerResponse } = deps.limits ?? DEFAULT_LIMITS;
  let outputTokens = 0;
  /** Every call the model starts, those dropped past `max_tool_calls` too: each costs the server work. */
  let callsStarted = 0;
  try {
    let next = first;
    for (;;) {
      // A provider that fails because the turn was cancelled reports the cancellation, not its own error.
      if (next instanceof Error && !cancellation?.cancelled) throw next;
      const behind = next instanceof Error ? undefined : backpressure?.();
      if (behind) await behind;
      if (cancellation?.cancelled) {
        stopParts(iterator);
        return failWith(new ResponsesError('server_error', cancellation.code, cancellation.reason));
      }
      if (next instanceof Error) throw next;
      if (next.done) break;
      // The server's caps on one response's output end it as max_output_tokens does, whatever the provider sends.
      const part = next.value;
      outputBytes += outputBytesOf(part);
      const delta = (part as { delta?: unknown }).delta;
      if (typeof delta === 'string') outputTokens += countTokens(delta);
      if (
        outputBytes > maxOutputBytes ||
        (part.type === 'function-call-start' && ++callsStarted > maxToolCallsPerResponse)
      ) {
        stopParts(iterator);
        const usage = { inputTokens: turn.inputTokens, outputTokens };
        return { response: writer.incomplete('max_output_tokens', { usage: usageOf(usage) }) };
      }
      const handled = handle(part);
      const result = handled instanceof Promise ? await handled : handled;
      if (result) {
        stopParts(iterator);
        return result;
      }
      try {
        const pending = iterator.next();
        next = pending instanceof Promise ? await pending : pending;
      } catch (error) {
        next = error as Error;
      }
    }
  } catch (error) {
    stopParts(iterator);
    return failWith(
      error instanceof ResponsesError
        ? error
        : new ResponsesError('model_error', 'model_failed', `The model failed: ${(error as Error).message}`),
    );
  }
  return failWith(
    new ResponsesError('model_error', 'model_stream_ended', 'The model stream ended without a finish part.'),
  );
}

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

/** `error` with its message and param through `redact` (the same error when nothing changed; `cause` kept). */
function redactedError(error: ResponsesError, redact: (text: string) => string): ResponsesError {
  const message = redact(error.message);
  const param = error.param === null || redact(error.param) === error.param ? error.param : null;
  if (message === error.message && param === error.param) return error;
  return new ResponsesError(error.type, error.code, message, param, error.status, {
    headers: error.headers,
    cause: error.cause,
  });
}
