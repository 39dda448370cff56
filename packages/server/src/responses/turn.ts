import { createStreamWriter, randomId, startingResponse, type AnyStreamingEvent } from '@openresponses/events';
import type {
  CreateResponseBody,
  FunctionToolParam,
  ItemField,
  LogProb,
  ResponseResource,
  Usage,
} from '@openresponses/types';
import { versions, validate, type SpecVersion } from '@openresponses/zod';
import type { Registry } from '@openresponses/extensions';
import { invalidRequest, ResponsesError } from '../errors.js';
import type { Backpressure } from '../exchange.js';
import { checkRequestBudgets, DEFAULT_LIMITS, utf8Length, type ServerLimits } from '../limits.js';
import {
  countTokens,
  itemText,
  LOGPROBS_INCLUDE,
  type ModelPart,
  type ModelProvider,
  type ModelRequest,
  type ModelUsage,
  type ToolPolicy,
} from '../models/provider.js';
import { acceptClientShapes, historyOf, normalizeInput, type LoadChain, type LookupItem } from './context.js';
import type { Cancellation } from '../cancellation.js';
import type { Sealer } from './sealed.js';

export interface TurnDependencies {
  /** Vendor extensions: requests validate with the registry's extended schemas. */
  registry?: Registry;
  providers: ModelProvider[];
  /** The model used when a request names none. */
  defaultModel: string;
  loadChain: LoadChain;
  lookupItem: LookupItem;
  sealer: Sealer;
  /** Budgets for request fields and output (default: `DEFAULT_LIMITS`). */
  limits?: ServerLimits;
}

/** A validated request, resolved against stored state, ready to run. */
export interface PreparedTurn {
  body: CreateResponseBody;
  model: string;
  provider: ModelProvider;
  /** This turn's input (what is stored and listed by input_items). */
  input: ItemField[];
  request: ModelRequest;
  inputTokens: number;
}

/** Validates and resolves a create request; every failure is a ResponsesError naming its `param`. */
export async function prepareTurn(
  raw: unknown,
  version: SpecVersion,
  deps: TurnDependencies,
  schema: 'CreateResponseBodySchema' | 'WebSocketResponseCreateEventSchema' = 'CreateResponseBodySchema',
): Promise<PreparedTurn> {
  checkRequestBudgets(raw, deps.limits ?? DEFAULT_LIMITS);
  const shaped = acceptClientShapes(raw);
  const schemas = versions[version].exact as unknown as Record<string, Parameters<typeof validate>[0]>;
  let target = schemas[schema] ?? schemas.CreateResponseBodySchema!;
  let body_ = shaped;
  if (deps.registry) {
    // The registry extends the create body; the WebSocket envelope's own rules are checked here.
    if (schema === 'WebSocketResponseCreateEventSchema') {
      const { type: _type, ...rest } = shaped as Record<string, unknown>;
      const sent = ['stream', 'stream_options', 'background'].find((field) => field in rest);
      if (sent)
        throw invalidRequest(
          'invalid_value',
          `Invalid request: ${sent} must not be sent in a WebSocket response.create message.`,
          sent,
        );
      body_ = rest;
    }
    target = deps.registry.schemas.CreateResponseBody as unknown as Parameters<typeof validate>[0];
  }
  const result = validate(target, body_);
  if (!result.success) {
    const issue = result.issues[0]!;
    throw invalidRequest(
      'invalid_value',
      `Invalid request: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`,
      issue.path || null,
    );
  }
  const body = result.data as CreateResponseBody;
  const model = body.model ?? deps.defaultModel;
  const provider = deps.providers.find((p) => p.supports(model));
  if (!provider)
    throw invalidRequest('model_not_found', `The model '${model}' does not exist on this server.`, 'model');
  const logprobsAt = body.include?.indexOf(LOGPROBS_INCLUDE) ?? -1;
  if (logprobsAt >= 0 && !provider.reportsLogprobs)
    throw invalidRequest(
      'unsupported_include',
      `The model '${model}' does not report token log probabilities.`,
      `include[${logprobsAt}]`,
    );

  const tools = (body.tools ?? []).filter((t): t is FunctionToolParam => t.type === 'function');
  const hostedTools = ((body.tools ?? []) as Array<{ type: string }>).filter((t) => t.type !== 'function');
  const toolPolicy = policyFor(body, tools);
  const history = body.previous_response_id
    ? await historyOf(body.previous_response_id, deps.loadChain, deps.sealer)
    : [];
  const { input, expanded } = await normalizeInput(body.input, deps.lookupItem, deps.sealer);
  rejectOrphanToolOutputs(body.input, history, expanded);
  let items = history.length === 0 ? expanded : history.concat(expanded);
  // Each item is counted once; truncation subtracts what it drops (re-counting after each drop was quadratic).
  const itemTokens = items.map((item) => countTokens(itemText(item)));
  let inputTokens = itemTokens.reduce((n, count) => n + count, countTokens(body.instructions ?? ''));
  if (inputTokens > provider.contextWindow) {
    if ((body.truncation ?? 'disabled') === 'disabled') {
      throw invalidRequest(
        'context_length_exceeded',
        `The input is ${inputTokens} tokens, over the model's context window of ${provider.contextWindow}; truncation is disabled.`,
        'input',
      );
    }
    const truncated = truncateOldest(items, itemTokens, inputTokens, provider.contextWindow);
    items = truncated.items;
    inputTokens = truncated.tokens;
  }
  const request: ModelRequest = {
    model,
    instructions: body.instructions ?? null,
    items,
    tools,
    hostedTools,
    toolPolicy,
    parallelToolCalls: body.parallel_tool_calls ?? true,
    maxToolCalls: body.max_tool_calls ?? null,
    reasoning: body.reasoning ?? null,
    maxOutputTokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    presencePenalty: body.presence_penalty ?? null,
    frequencyPenalty: body.frequency_penalty ?? null,
    topLogprobs: body.top_logprobs ?? null,
    text: body.text ?? null,
    metadata: (body.metadata ?? {}) as Record<string, string>,
    safetyIdentifier: body.safety_identifier ?? null,
    promptCacheKey: body.prompt_cache_key ?? null,
    serviceTier: body.service_tier ?? null,
    include: (body.include ?? []) as string[],
    stream: body.stream === true,
  };
  return { body, model, provider, input, request, inputTokens };
}

const isInstruction = (item: ItemField) =>
  item.type === 'message' && ['system', 'developer'].includes((item as { role: string }).role);

/**
 * truncation: auto. Drops the oldest items first, keeping system and developer messages (and, when only
 * those are left, the oldest of them), until the context fits or one item is left. Linear: two cursors
 * over the items, each moving forward only.
 */
function truncateOldest(
  items: ItemField[],
  itemTokens: number[],
  tokens: number,
  window: number,
): { items: ItemField[]; tokens: number } {
  const dropped = new Uint8Array(items.length);
  let left = items.length;
  let nextOrdinary = 0;
  let nextAny = 0;
  while (tokens > window && left > 1) {
    while (nextOrdinary < items.length && (dropped[nextOrdinary] || isInstruction(items[nextOrdinary]!)))
      nextOrdinary++;
    while (dropped[nextAny]) nextAny++;
    const drop = nextOrdinary < items.length ? nextOrdinary : nextAny;
    dropped[drop] = 1;
    left--;
    tokens -= itemTokens[drop]!;
  }
  return { items: items.filter((_, index) => !dropped[index]), tokens };
}

/**
 * A function_call_output answers a function_call of the context (the previous chain or this input); one that
 * answers nothing is an invalid request, as in the Responses API, rather than a message the model cannot place.
 */
function rejectOrphanToolOutputs(
  input: CreateResponseBody['input'],
  history: ItemField[],
  expanded: ItemField[],
): void {
  if (!Array.isArray(input) || !input.some((item) => item.type === 'function_call_output')) return;
  const calls = new Set<string>();
  for (const list of [history, expanded])
    for (const item of list) if (item.type === 'function_call') calls.add((item as { call_id: string }).call_id);
  for (const [index, item] of input.entries()) {
    if (item.type !== 'function_call_output') continue;
    const callId = (item as { call_id: string }).call_id;
    if (!calls.has(callId))
      throw invalidRequest(
        'function_call_not_found',
        `No function_call with call_id '${callId}' in the context (previous responses and this input) for input[${index}] to answer.`,
        `input[${index}].call_id`,
      );
  }
}

function policyFor(body: CreateResponseBody, tools: FunctionToolParam[]): ToolPolicy {
  const names = tools.map((t) => t.name);
  const choice = body.tool_choice ?? 'auto';
  const exists = (name: string, param: string) => {
    if (!names.includes(name))
      throw invalidRequest(
        'unknown_tool',
        `tool_choice names '${name}', which is not among the request's tools.`,
        param,
      );
  };
  if (choice === 'none' || choice === 'auto' || choice === 'required') {
    if (choice === 'required' && names.length === 0)
      throw invalidRequest(
        'tool_choice_without_tools',
        'tool_choice "required" needs at least one tool.',
        'tool_choice',
      );
    return { mode: choice, allowed: choice === 'none' ? [] : names };
  }
  if (choice.type === 'function') {
    exists(choice.name, 'tool_choice.name');
    return { mode: 'required', allowed: [choice.name], forced: choice.name };
  }
  for (const [i, t] of choice.tools.entries()) exists(t.name, `tool_choice.tools[${i}].name`);
  return { mode: choice.mode ?? 'auto', allowed: choice.tools.map((t) => t.name) };
}

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
}

/** The outcome of a turn: the final response, and the error when it failed. */
export interface TurnResult {
  response: ResponseResource;
  error?: ResponsesError;
}

/** A turn whose model stream has begun: its first part has arrived (or the stream ended at once). */
export interface StartedTurn {
  /** Streams the rest of the turn through the events writer. */
  run(onEvent?: (event: AnyStreamingEvent) => void, backpressure?: Backpressure): Promise<TurnResult>;
}

/**
 * Starts the model on a prepared turn and waits for its first part, so that a provider failing before
 * it produced anything (an upstream's 429 with `Retry-After`, a refused key) is answered as a plain
 * error (thrown here) instead of a response that starts and then fails.
 */
export async function startTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: Omit<RunOptions, 'onEvent'> = {},
): Promise<StartedTurn> {
  const iterator = turn.provider
    .generate(new ProviderRequest(turn.request, options.cancellation, !options.wholeDeltas))
    [Symbol.asyncIterator]();
  let first: IteratorResult<ModelPart> | Error;
  try {
    first = await iterator.next();
  } catch (error) {
    if (error instanceof ResponsesError) throw error;
    first = error as Error;
  }
  return {
    run: (onEvent, backpressure) =>
      streamTurn(turn, deps, options, onEvent, iterator, first, backpressure ?? options.backpressure),
  };
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

/** One output item the model streams: open in the writer, or waiting (its parts held) while another is open. */
interface Lane {
  key: string;
  /** Starts the item in the writer; returns how parts reach it and how it ends (nothing for a whole item). */
  begin(): { apply(part: ModelPart): void; close(): void | Promise<void> } | undefined;
  /** Parts that arrived while the lane was waiting, replayed when it opens. */
  held: ModelPart[];
}

/** `text-delta` -> `text`, `reasoning-summary-end` -> `reasoning` (summary parts belong to their reasoning item). */
/** A lane per started item; the text and refusal parts of one message share its lane. */
const laneKey = (part: { type: string; id: string }) => {
  const kind = part.type.slice(0, part.type.indexOf('-'));
  return `${kind === 'refusal' || kind === 'message' ? 'text' : kind}:${part.id}`;
};
const isItemEnd = (type: string) => type.endsWith('-end') && type !== 'reasoning-summary-end';

async function streamTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer' | 'limits'>,
  options: Omit<RunOptions, 'onEvent'>,
  onEvent: ((event: AnyStreamingEvent) => void) | undefined,
  iterator: AsyncIterator<ModelPart>,
  first: IteratorResult<ModelPart> | Error,
  backpressure: Backpressure | undefined,
): Promise<TurnResult> {
  const { request } = turn;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const writer = createStreamWriter({ response: initialResponse(turn, now()), onEvent: onEvent ?? (() => {}), now });
  writer.start();
  const maxCalls = request.maxToolCalls ?? Infinity;
  const { include } = request;
  let calls = 0;
  /** Lanes started and not ended, by key; `null` marks a call dropped past `max_tool_calls`. */
  const lanes = new Map<string, Lane | null>();
  /** Lanes waiting for the open one to end, in the order they started. */
  const waiting: Lane[] = [];
  let open: { lane: Lane; apply(part: ModelPart): void; close(): void | Promise<void> } | undefined;

  const failWith = (error: ResponsesError): TurnResult => ({
    response: writer.fail({ type: error.type, code: error.code, message: error.message, param: error.param }),
    error,
  });

  /** Opens lanes from the queue until one stays open (a whole item, or one whose end was held, closes at once). */
  const openNext = async (): Promise<void> => {
    while (!open) {
      const lane = waiting.shift();
      if (!lane) return;
      const streaming = lane.begin();
      if (!streaming) continue;
      open = { lane, apply: streaming.apply, close: streaming.close };
      for (const part of lane.held.splice(0)) await deliver(part);
    }
  };

  /** Sends a part to the open lane; its end closes it and opens the next waiting lane. */
  const deliver = async (part: ModelPart): Promise<void> => {
    const current = open!;
    if (!isItemEnd(part.type)) {
      current.apply(part);
      return;
    }
    await current.close();
    lanes.delete(current.lane.key);
    open = undefined;
    await openNext();
  };

  const enqueue = async (lane: Lane) => {
    waiting.push(lane);
    if (!open) await openNext();
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
            close: async () => {
              summary?.done();
              // Only on request (include), as the OpenAPI describes: most clients never send reasoning back.
              reasoning.done(
                include.includes('reasoning.encrypted_content')
                  ? { encrypted_content: await deps.sealer.seal({ summary: summaries, content }, 'reasoning') }
                  : {},
              );
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

  /** Handles one part; returns the result when the turn ended. */
  const handle = async (part: ModelPart): Promise<TurnResult | undefined> => {
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
        // What the provider left open ends here, in order.
        while (open) await deliver({ type: 'text-end', id: '' });
        if (request.toolPolicy.mode === 'required' && calls === 0)
          return failWith(
            new ResponsesError(
              'model_error',
              'tool_call_required',
              'tool_choice requires a tool call, and the model made none.',
            ),
          );
        return { response: writer.complete({ usage: usageOf(part.usage) }) };
      }
      case 'error':
        return failWith(new ResponsesError('model_error', part.code, part.message));
      case 'vendor-event':
        writer.emitVendorEvent(part.event);
        return undefined;
      case 'item': {
        const { id, ...rest } = part.item;
        const item = Object.assign({}, rest, { id: id ?? randomId('item') });
        await enqueue({ key: '', held: [], begin: () => void writer.addItem(item).done() });
        return undefined;
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
        await enqueue(lane);
        return undefined;
      }
      default: {
        const key = laneKey(part);
        const lane = lanes.get(key);
        if (lane === undefined)
          throw invalidStream(`The model sent ${part.type} for '${part.id}', which it had not started.`);
        if (lane === null) {
          if (isItemEnd(part.type)) lanes.delete(key);
        } else if (open?.lane === lane) await deliver(part);
        else lane.held.push(part);
        return undefined;
      }
    }
  };

  const cancellation = options.cancellation;
  const maxOutputBytes = (deps.limits ?? DEFAULT_LIMITS).maxOutputBytes;
  let outputBytes = 0;
  let outputTokens = 0;
  try {
    for (let next = first; ; next = await iterator.next().catch((error: Error) => error)) {
      if (next instanceof Error) throw next;
      const behind = backpressure?.();
      if (behind) await behind;
      if (cancellation?.cancelled) {
        void iterator.return?.()?.catch(() => {});
        return failWith(new ResponsesError('server_error', 'cancelled', cancellation.reason));
      }
      if (next.done) break;
      // The server's cap on one response's output ends it as max_output_tokens does, whatever the provider sends.
      const delta = (next.value as { delta?: unknown }).delta;
      if (typeof delta === 'string') {
        outputBytes += utf8Length(delta);
        outputTokens += countTokens(delta);
      } else if (next.value.type === 'item') outputBytes += utf8Length(JSON.stringify(next.value.item));
      if (outputBytes > maxOutputBytes) {
        void iterator.return?.()?.catch(() => {});
        const usage = { inputTokens: turn.inputTokens, outputTokens };
        return { response: writer.incomplete('max_output_tokens', { usage: usageOf(usage) }) };
      }
      const result = await handle(next.value);
      if (result) {
        void iterator.return?.()?.catch(() => {});
        return result;
      }
    }
  } catch (error) {
    void iterator.return?.()?.catch(() => {});
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

/**
 * The request a provider sees. `signal` is a getter on the class, made only when a provider reads it
 * (on Node 20 an AbortController is costly to make and to collect; an own getter per object costs a
 * hidden class per request). Read `request.signal` from this object: a spread copy does not carry it.
 */
class ProviderRequest implements ModelRequest {
  readonly model: string;
  readonly instructions: string | null;
  readonly items: ItemField[];
  readonly tools: FunctionToolParam[];
  readonly hostedTools: ModelRequest['hostedTools'];
  readonly toolPolicy: ToolPolicy;
  readonly parallelToolCalls: boolean;
  readonly maxToolCalls: number | null;
  readonly reasoning: ModelRequest['reasoning'];
  readonly maxOutputTokens: number | null;
  readonly temperature: number | null;
  readonly topP: number | null;
  readonly presencePenalty: number | null;
  readonly frequencyPenalty: number | null;
  readonly topLogprobs: number | null;
  readonly text: ModelRequest['text'];
  readonly metadata: Record<string, string>;
  readonly safetyIdentifier: string | null;
  readonly promptCacheKey: string | null;
  readonly serviceTier: string | null;
  readonly include: string[];
  readonly stream: boolean;
  readonly #cancellation: Cancellation | undefined;

  constructor(request: ModelRequest, cancellation: Cancellation | undefined, stream: boolean) {
    this.model = request.model;
    this.instructions = request.instructions;
    this.items = request.items;
    this.tools = request.tools;
    this.hostedTools = request.hostedTools;
    this.toolPolicy = request.toolPolicy;
    this.parallelToolCalls = request.parallelToolCalls;
    this.maxToolCalls = request.maxToolCalls;
    this.reasoning = request.reasoning;
    this.maxOutputTokens = request.maxOutputTokens;
    this.temperature = request.temperature;
    this.topP = request.topP;
    this.presencePenalty = request.presencePenalty;
    this.frequencyPenalty = request.frequencyPenalty;
    this.topLogprobs = request.topLogprobs;
    this.text = request.text;
    this.metadata = request.metadata;
    this.safetyIdentifier = request.safetyIdentifier;
    this.promptCacheKey = request.promptCacheKey;
    this.serviceTier = request.serviceTier;
    this.include = request.include;
    this.stream = stream;
    this.#cancellation = cancellation;
  }

  get signal(): AbortSignal | undefined {
    return this.#cancellation?.signal;
  }

  onCancel(listener: () => void): () => void {
    return this.#cancellation ? this.#cancellation.onCancel(listener) : noop;
  }
}

const noop = () => {};

function initialResponse(turn: PreparedTurn, createdAt: number): ResponseResource {
  const { body } = turn;
  // Echo what the request set; everything else keeps the spec defaults of startingResponse.
  return startingResponse({
    created_at: createdAt,
    model: turn.model,
    previous_response_id: body.previous_response_id ?? null,
    instructions: body.instructions ?? null,
    tools: [
      ...turn.request.tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description ?? null,
        parameters: t.parameters ?? null,
        strict: t.strict ?? false,
      })),
      ...turn.request.hostedTools,
    ] as ResponseResource['tools'],
    tool_choice: echoToolChoice(body.tool_choice),
    truncation: body.truncation ?? 'disabled',
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    text: {
      format: textFormat(body),
      ...(body.text?.verbosity ? { verbosity: body.text.verbosity } : {}),
    } as ResponseResource['text'],
    top_p: body.top_p ?? 1,
    presence_penalty: body.presence_penalty ?? 0,
    frequency_penalty: body.frequency_penalty ?? 0,
    top_logprobs: body.top_logprobs ?? 0,
    temperature: body.temperature ?? 1,
    reasoning: body.reasoning
      ? ({
          effort: body.reasoning.effort ?? null,
          summary: body.reasoning.summary ?? null,
        } as ResponseResource['reasoning'])
      : null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    store: body.store ?? true,
    background: body.background ?? false,
    // Every tier runs the same way here (see the README); `auto` reports the tier it resolved to.
    service_tier: !body.service_tier || body.service_tier === 'auto' ? 'default' : body.service_tier,
    metadata: body.metadata ?? {},
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
  });
}

/** The response echoes the requested format in the response's shape (which carries no schema). */
function textFormat(body: CreateResponseBody): ResponseResource['text']['format'] {
  const format = body.text?.format;
  if (format?.type !== 'json_schema') return { type: 'text' };
  return {
    type: 'json_schema',
    name: format.name ?? 'response',
    description: format.description ?? null,
    schema: null,
    strict: format.strict ?? false,
  };
}

/** The response's tool_choice shape requires `mode` on allowed_tools, which requests may omit. */
function echoToolChoice(choice: CreateResponseBody['tool_choice']): ResponseResource['tool_choice'] {
  if (!choice) return 'auto';
  if (typeof choice === 'string' || choice.type === 'function') return choice as ResponseResource['tool_choice'];
  return {
    type: 'allowed_tools',
    tools: choice.tools.map((t) => ({ type: 'function', name: t.name })),
    mode: choice.mode ?? 'auto',
  };
}
