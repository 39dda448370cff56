import type { Context } from '@opentelemetry/api';
import type { CreateResponseBody } from '@openresponses/types';
import type { Cancellation } from '../../cancellation.js';
import type { ModelRequest, ReasoningState } from '../../models/provider.js';
import type { TurnFacts } from '../../telemetry/attributes.js';
import { type Sealer, UnsealError } from '../sealed.js';

/** What preparation resolved (model, context, tools) beside the body's own settings. */
export type ResolvedRequest = Pick<
  ModelRequest,
  'model' | 'items' | 'inputTokens' | 'tools' | 'hostedTools' | 'toolPolicy'
>;

/** Every generation setting of the body, defaults applied, with what preparation resolved. */
export function modelRequestOf(body: CreateResponseBody, resolved: ResolvedRequest): ModelRequest {
  return {
    model: resolved.model,
    instructions: body.instructions ?? null,
    items: resolved.items,
    inputTokens: resolved.inputTokens,
    tools: resolved.tools,
    hostedTools: resolved.hostedTools,
    toolPolicy: resolved.toolPolicy,
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
}

/**
 * The request a provider sees: the prepared request's fields, and `signal`, `onCancel` and `openReasoning` on
 * the prototype: `signal` is made only when a provider reads it (on Node 20 an AbortController is costly to
 * make and to collect; an own getter per object costs a hidden class per request). The fields are copied
 * one by one, in `modelRequestOf`'s order: `Object.assign` onto a class instance took V8's slow path, ~0.7 µs
 * a turn against ~0.05 (test/turn-stages.test.ts checks that every field of the prepared request is here).
 */
class RequestView implements ModelRequest {
  readonly #cancellation: Cancellation | undefined;
  readonly #sealer: Sealer;
  declare model: string;
  declare instructions: ModelRequest['instructions'];
  declare items: ModelRequest['items'];
  declare inputTokens: ModelRequest['inputTokens'];
  declare tools: ModelRequest['tools'];
  declare hostedTools: ModelRequest['hostedTools'];
  declare toolPolicy: ModelRequest['toolPolicy'];
  declare parallelToolCalls: boolean;
  declare maxToolCalls: ModelRequest['maxToolCalls'];
  declare reasoning: ModelRequest['reasoning'];
  declare maxOutputTokens: ModelRequest['maxOutputTokens'];
  declare temperature: ModelRequest['temperature'];
  declare topP: ModelRequest['topP'];
  declare presencePenalty: ModelRequest['presencePenalty'];
  declare frequencyPenalty: ModelRequest['frequencyPenalty'];
  declare topLogprobs: ModelRequest['topLogprobs'];
  declare text: ModelRequest['text'];
  declare metadata: ModelRequest['metadata'];
  declare safetyIdentifier: ModelRequest['safetyIdentifier'];
  declare promptCacheKey: ModelRequest['promptCacheKey'];
  declare serviceTier: ModelRequest['serviceTier'];
  declare include: ModelRequest['include'];
  declare stream: boolean;
  declare readonly traceContext: Context | undefined;
  declare readonly facts: Pick<TurnFacts, 'upstreamMs'> | undefined;
  // Set by a provider that picks among upstreams (not an own field until then, as on the prepared request).
  declare upstream?: string;

  constructor(
    request: ModelRequest,
    stream: boolean,
    cancellation: Cancellation | undefined,
    sealer: Sealer,
    traceContext: Context | undefined,
    facts: Pick<TurnFacts, 'upstreamMs'> | undefined,
  ) {
    this.#cancellation = cancellation;
    this.#sealer = sealer;
    this.model = request.model;
    this.instructions = request.instructions;
    this.items = request.items;
    this.inputTokens = request.inputTokens;
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
    this.traceContext = traceContext;
    this.facts = facts;
  }

  async openReasoning(encryptedContent: string): Promise<ReasoningState | undefined> {
    try {
      return (await this.#sealer.open<{ state?: ReasoningState }>(encryptedContent, 'reasoning')).state;
    } catch (error) {
      // A key rotated away since it was stored: the item goes without its state, as one that never had any.
      if (error instanceof UnsealError) return undefined;
      throw error;
    }
  }

  get signal(): AbortSignal | undefined {
    return this.#cancellation?.signal;
  }

  onCancel(listener: () => void): () => void {
    return this.#cancellation ? this.#cancellation.onCancel(listener) : noop;
  }
}

const noop = () => {};

/**
 * The request a provider sees (see `RequestView`): the prepared request's fields, `stream` as the transport
 * watches it, the turn's trace context and facts, the cancellation view, and `openReasoning` with the server's
 * keys. Read `request.signal` from this object: a spread copy does not carry it.
 */
export function providerRequest(
  request: ModelRequest,
  cancellation: Cancellation | undefined,
  stream: boolean,
  sealer: Sealer,
  traceContext: Context | undefined,
  facts?: Pick<TurnFacts, 'upstreamMs'>,
): ModelRequest {
  return new RequestView(request, stream, cancellation, sealer, traceContext, facts);
}
