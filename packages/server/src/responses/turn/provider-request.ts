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
 * `signal`, `onCancel` and `openReasoning` of the request a provider sees, on the prototype: `signal` is
 * made only when a provider reads it (on Node 20 an AbortController is costly to make and to collect; an
 * own getter per object costs a hidden class per request).
 */
class RequestView {
  readonly #cancellation: Cancellation | undefined;
  readonly #sealer: Sealer;
  readonly traceContext: Context | undefined;
  readonly facts: Pick<TurnFacts, 'upstreamMs'> | undefined;

  constructor(
    cancellation: Cancellation | undefined,
    sealer: Sealer,
    traceContext: Context | undefined,
    facts: Pick<TurnFacts, 'upstreamMs'> | undefined,
  ) {
    this.#cancellation = cancellation;
    this.#sealer = sealer;
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
 * The request a provider sees: the prepared request's fields (copied whole, so a new `ModelRequest` field
 * reaches providers without a line here), `stream` as the transport watches it, the turn's trace context
 * and facts,
 * the cancellation view, and `openReasoning` with the server's keys.
 * Read `request.signal` from this object: a spread copy does not carry it.
 */
export function providerRequest(
  request: ModelRequest,
  cancellation: Cancellation | undefined,
  stream: boolean,
  sealer: Sealer,
  traceContext: Context | undefined,
  facts?: Pick<TurnFacts, 'upstreamMs'>,
): ModelRequest {
  const view = Object.assign(new RequestView(cancellation, sealer, traceContext, facts), request);
  view.stream = stream;
  return view;
}
