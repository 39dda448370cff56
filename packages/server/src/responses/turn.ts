import { createStreamWriter, randomId, startingResponse, type AnyStreamingEvent } from '@openresponses/events';
import type { CreateResponseBody, FunctionToolParam, ItemField, ResponseResource, Usage } from '@openresponses/types';
import { versions, validate, type SpecVersion } from '@openresponses/zod';
import type { Registry } from '@openresponses/extensions';
import { invalidRequest, ResponsesError } from '../errors.js';
import { countTokens, itemText, type ModelProvider, type ModelRequest, type ToolPolicy } from '../models/provider.js';
import { acceptClientShapes, historyOf, normalizeInput, type LookupItem, type LookupResponse } from './context.js';
import type { Cancellation } from './cancellation.js';
import type { Sealer } from './sealed.js';

export interface TurnDependencies {
  /** Vendor extensions: requests validate with the registry's extended schemas. */
  registry?: Registry;
  providers: ModelProvider[];
  /** The model used when a request names none. */
  defaultModel: string;
  lookupResponse: LookupResponse;
  lookupItem: LookupItem;
  sealer: Sealer;
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

  const tools = (body.tools ?? []).filter((t): t is FunctionToolParam => t.type === 'function');
  const hostedTools = ((body.tools ?? []) as Array<{ type: string }>).filter((t) => t.type !== 'function');
  const toolPolicy = policyFor(body, tools);
  const history = body.previous_response_id
    ? await historyOf(body.previous_response_id, deps.lookupResponse, deps.sealer)
    : [];
  const { input, expanded } = await normalizeInput(body.input, deps.lookupItem, deps.sealer);
  let items = [...history, ...expanded];
  const tokensOf = (list: ItemField[]) =>
    list.reduce((n, item) => n + countTokens(itemText(item)), countTokens(body.instructions ?? ''));
  let inputTokens = tokensOf(items);
  if (inputTokens > provider.contextWindow) {
    if ((body.truncation ?? 'disabled') === 'disabled') {
      throw invalidRequest(
        'context_length_exceeded',
        `The input is ${inputTokens} tokens, over the model's context window of ${provider.contextWindow}; truncation is disabled.`,
        'input',
      );
    }
    // truncation: auto drops the oldest items first, keeping system and developer messages.
    while (inputTokens > provider.contextWindow && items.length > 1) {
      const drop = items.findIndex(
        (i) => !(i.type === 'message' && ['system', 'developer'].includes((i as { role: string }).role)),
      );
      items = items.filter((_, k) => k !== Math.max(drop, 0));
      inputTokens = tokensOf(items);
    }
  }
  const request: ModelRequest = {
    model,
    instructions: body.instructions ?? null,
    items,
    tools,
    hostedTools,
    toolPolicy,
    parallelToolCalls: body.parallel_tool_calls ?? true,
    reasoning: body.reasoning ?? null,
    maxOutputTokens: body.max_output_tokens ?? null,
  };
  return { body, model, provider, input, request, inputTokens };
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
   * Nobody watches the deltas (a non-streaming answer): each part's text goes to the writer as one delta
   * instead of word by word. The response is the same; a fraction of the events are made.
   */
  wholeDeltas?: boolean;
  /** Stops the turn when the client goes away. */
  cancellation?: Cancellation;
  now?: () => number;
}

/** The outcome of a turn: the final response, and the error when it failed. */
export interface TurnResult {
  response: ResponseResource;
  error?: ResponsesError;
}

/**
 * Runs a prepared turn through the model and the events writer (the one way events are made), so the
 * JSON answer, the SSE stream and the WebSocket stream of a turn are the same response.
 */
export async function runTurn(
  turn: PreparedTurn,
  deps: Pick<TurnDependencies, 'sealer'>,
  options: RunOptions = {},
): Promise<TurnResult> {
  const { body, request } = turn;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const writer = createStreamWriter({
    response: initialResponse(turn, now()),
    onEvent: options.onEvent ?? (() => {}),
    now,
  });
  writer.start();
  const budget = body.max_output_tokens ?? Infinity;
  const maxCalls = body.max_tool_calls ?? Infinity;
  let outputTokens = 0;
  let reasoningTokens = 0;
  let calls = 0;
  const usage = (): Usage => ({
    input_tokens: turn.inputTokens,
    output_tokens: outputTokens,
    total_tokens: turn.inputTokens + outputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: reasoningTokens },
  });
  /** Spends one token; false when the budget is gone (the caller ends the response as incomplete). */
  const spend = (reasoning = false) => {
    if (outputTokens >= budget) return false;
    outputTokens++;
    if (reasoning) reasoningTokens++;
    return true;
  };
  /** Appends pieces while the output budget lasts; false when it ran out. */
  const appendWithin = (pieces: string[], append: (text: string) => void, reasoning = false): boolean => {
    if (!options.wholeDeltas) {
      for (const piece of pieces) {
        if (!spend(reasoning)) return false;
        append(piece);
      }
      return true;
    }
    let fits = 0;
    while (fits < pieces.length && spend(reasoning)) fits++;
    if (fits > 0) append(pieces.slice(0, fits).join(''));
    return fits === pieces.length;
  };
  /** A text, word by word (or whole, when nobody watches the deltas), while the budget lasts; false when it ran out. */
  const appendText = (text: string, append: (text: string) => void, reasoning = false): boolean => {
    if (options.wholeDeltas) {
      const count = countTokens(text);
      if (outputTokens + count <= budget) {
        outputTokens += count;
        if (reasoning) reasoningTokens += count;
        // The words joined are the text without its trailing whitespace.
        if (count > 0) append(text.trimEnd());
        return true;
      }
    }
    return appendWithin(words(text), append, reasoning);
  };
  /** The output budget ran out: the open item and the response end as incomplete. */
  const outOfTokens = (): TurnResult => ({ response: writer.incomplete('max_output_tokens', { usage: usage() }) });
  const failWith = (error: ResponsesError): TurnResult => ({
    response: writer.fail({ type: error.type, code: error.code, message: error.message, param: error.param }),
    error,
  });

  try {
    const cancellation = options.cancellation;
    for await (const step of turn.provider.generate(new ProviderRequest(request, cancellation))) {
      if (cancellation?.cancelled)
        return failWith(new ResponsesError('server_error', 'cancelled', 'The client went away.'));
      switch (step.type) {
        case 'error':
          return failWith(new ResponsesError('model_error', step.code, step.message));
        case 'reasoning': {
          const reasoning = writer.addReasoning();
          for (const text of step.summary) {
            const part = reasoning.addSummaryPart();
            if (!appendText(text, (t) => part.append(t), true)) return outOfTokens();
            part.done();
          }
          if (!appendText(step.content ?? '', (t) => reasoning.appendContent(t), true)) return outOfTokens();
          reasoning.done({
            encrypted_content: await deps.sealer.seal({ summary: step.summary, content: step.content ?? null }),
          });
          break;
        }
        case 'message':
        case 'refusal': {
          const message = writer.addMessage(step.type === 'message' && step.phase ? { phase: step.phase } : {});
          const part = step.type === 'message' ? message.addOutputText() : message.addRefusal();
          const delayMs = step.type === 'message' ? step.delayMs : undefined;
          if (!delayMs) {
            if (!appendText(step.text, (t) => part.append(t))) return outOfTokens();
          } else {
            for (const word of words(step.text)) {
              if (!spend()) return outOfTokens();
              await new Promise((resolve) => setTimeout(resolve, delayMs));
              if (cancellation?.cancelled)
                return failWith(new ResponsesError('server_error', 'cancelled', 'The client went away.'));
              part.append(word);
            }
          }
          part.done();
          message.done();
          break;
        }
        case 'item': {
          const { id, ...rest } = step.item;
          writer.addItem(Object.assign({}, rest, { id: id ?? randomId('item') })).done();
          break;
        }
        case 'vendor_event':
          writer.emitVendorEvent(step.event);
          break;
        case 'function_call': {
          // tool_choice and allowed_tools are hard constraints, whatever the provider does.
          if (!request.toolPolicy.allowed.includes(step.name)) {
            return failWith(
              new ResponsesError(
                'model_error',
                'tool_not_allowed',
                `The model called '${step.name}', which tool_choice does not allow.`,
              ),
            );
          }
          if (calls >= maxCalls) break;
          calls++;
          const call = writer.addFunctionCall({ name: step.name, call_id: step.call_id ?? randomId('call') });
          const chunks: string[] = [];
          for (let i = 0; i < step.arguments.length; i += 16) chunks.push(step.arguments.slice(i, i + 16));
          if (!appendWithin(chunks, (t) => call.appendArguments(t))) return outOfTokens();
          call.done();
          break;
        }
      }
    }
  } catch (error) {
    return failWith(
      error instanceof ResponsesError
        ? error
        : new ResponsesError('model_error', 'model_failed', `The model failed: ${(error as Error).message}`),
    );
  }
  if (request.toolPolicy.mode === 'required' && calls === 0) {
    return failWith(
      new ResponsesError(
        'model_error',
        'tool_call_required',
        'tool_choice requires a tool call, and the model made none.',
      ),
    );
  }
  return { response: writer.complete({ usage: usage() }) };
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
  readonly reasoning: ModelRequest['reasoning'];
  readonly maxOutputTokens: number | null;
  readonly #cancellation: Cancellation | undefined;

  constructor(request: ModelRequest, cancellation: Cancellation | undefined) {
    this.model = request.model;
    this.instructions = request.instructions;
    this.items = request.items;
    this.tools = request.tools;
    this.hostedTools = request.hostedTools;
    this.toolPolicy = request.toolPolicy;
    this.parallelToolCalls = request.parallelToolCalls;
    this.reasoning = request.reasoning;
    this.maxOutputTokens = request.maxOutputTokens;
    this.#cancellation = cancellation;
  }

  get signal(): AbortSignal | undefined {
    return this.#cancellation?.signal;
  }
}

/** Text as streamed word by word, spaces kept with the following word. */
function words(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

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
    service_tier: body.service_tier ?? 'default',
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
