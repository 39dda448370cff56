import type { Context } from '@opentelemetry/api';
import type { Annotation, CreateResponseBody, FunctionToolParam, ItemField, LogProb } from '@openresponses/types';

/** The `include` value that asks for output text logprobs (a provider sends them with `reportsLogprobs`). */
export const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/** Which tools the model may call, after `tool_choice` and `allowed_tools` are applied. */
export interface ToolPolicy {
  /** Whether the model may (`auto`), must (`required`) or must not (`none`) call a tool. */
  mode: 'auto' | 'required' | 'none';
  /** Names the model may call (a subset of the request's tools); one name when a function is forced. */
  allowed: string[];
  /** A single function the model must call, when `tool_choice` names one. */
  forced?: string;
}

/** Every generation setting of a `CreateResponseBody`, resolved (defaults applied where the spec sets one). */
export interface ModelRequest {
  /** The model the request names. */
  model: string;
  /** The request's `instructions`. */
  instructions: string | null;
  /** The whole context in order: previous input, previous output, this input (with compactions expanded). */
  items: ItemField[];
  /**
   * The context's size in `countTokens` tokens (`instructions` and `items`), when the turn counted it for
   * the context window; a provider that reports estimated usage takes it from here rather than counting
   * the whole context again (`contextTokens`). Absent when the window check decided without counting
   * (the context's length alone showed it fits) and on requests built by hand.
   */
  inputTokens?: number;
  /** The request's function tools. */
  tools: FunctionToolParam[];
  /** Tools of other types the request declared (hosted vendor tools, accepted through a registry). */
  hostedTools: Array<{
    /** The hosted tool's type (`acme:document_search`). */
    type: string;
    [key: string]: unknown;
  }>;
  /** How the model must use tools (`tool_choice`). */
  toolPolicy: ToolPolicy;
  /** Whether several calls may be made in one turn. */
  parallelToolCalls: boolean;
  /** Most function calls the response may hold (the turn runner drops calls past it). */
  maxToolCalls: number | null;
  /** The request's `reasoning` settings. */
  reasoning: {
    /** `reasoning.effort`. */
    effort?: string | null;
    /** `reasoning.summary`. */
    summary?: string | null;
  } | null;
  /** `max_output_tokens`. */
  maxOutputTokens: number | null;
  /** `temperature`. */
  temperature: number | null;
  /** `top_p`. */
  topP: number | null;
  /** `presence_penalty`. */
  presencePenalty: number | null;
  /** `frequency_penalty`. */
  frequencyPenalty: number | null;
  /** `top_logprobs`. */
  topLogprobs: number | null;
  /** `text.format` (`text`, `json_schema` with its schema, `json_object`) and `text.verbosity`. */
  text: NonNullable<CreateResponseBody['text']> | null;
  /** The request's `metadata`. */
  metadata: Record<string, string>;
  /** `safety_identifier`. */
  safetyIdentifier: string | null;
  /** `prompt_cache_key`. */
  promptCacheKey: string | null;
  /** `service_tier`. */
  serviceTier: string | null;
  /** The request's `include` values. */
  include: string[];
  /**
   * Whether a client watches the deltas as they come. When false (a JSON answer) a provider may send
   * each text in one delta, or call its upstream without streaming.
   */
  stream: boolean;
  /** Aborted when the client goes away (made on first read: read it from the request object, not from a spread copy). */
  readonly signal?: AbortSignal;
  /**
   * Opens the `encrypted_content` of a reasoning item in `items`: the `state` its provider ended it with
   * (undefined when it carries none, or cannot be opened). Input reasoning was checked to be this server's,
   * unaltered, when the request was prepared; a provider never sends reasoning it cannot open upstream.
   */
  openReasoning?(encryptedContent: string): Promise<ReasoningState | undefined>;
  /**
   * Calls `listener` once when the client goes away; returns what stops listening. The same as a listener
   * on `signal`, without making an AbortSignal (each costs Node 20 a few µs, and more to collect).
   */
  onCancel?(listener: () => void): () => void;
  /**
   * The OpenTelemetry context of the turn's span while it is traced (undefined otherwise): the parent of
   * the provider's own spans. `UpstreamCall` passes it on, so upstream calls are its children.
   */
  readonly traceContext?: Context;
  /**
   * Set by a provider that picks among several upstreams (a fallback route) to the one that answered, before
   * its first part; the client is told it in the `openresponses-upstream` header.
   */
  upstream?: string;
}

/** A provider's own data for a reasoning item (JSON), sealed with the server's keys between turns. */
export type ReasoningState = { [key: string]: unknown };

/** Why the model stopped: `length` ends the response incomplete (`max_output_tokens`), `content_filter` too. */
export type FinishReason = 'stop' | 'length' | 'content_filter' | 'tool_calls' | 'error';

/** Token counts of one turn, as a provider reports them. */
export interface ModelUsage {
  /** Input tokens the turn used. */
  inputTokens: number;
  /** Output tokens it produced. */
  outputTokens: number;
  /** Part of `outputTokens` spent on reasoning. */
  reasoningTokens?: number;
  /** Part of `inputTokens` served from a prompt cache. */
  cachedInputTokens?: number;
}

/**
 * What a model streams, in the style of the AI SDK's language-model stream parts. Items are keyed by
 * the provider's own `id` (any string unique within the turn); the turn runner gives them spec ids.
 * Items may interleave (several tool calls streamed at once): the turn runner streams one item at a
 * time and holds the parts of the others until the open one ends. Every stream ends with `finish`
 * (or `error`); a stream that just stops fails the response.
 */
export type ModelPart =
  | {
      /** The part type. */
      type: 'text-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** `commentary` for a message before tool calls, `final_answer` for the answer. */
      phase?: 'commentary' | 'final_answer';
    }
  /** `logprobs`: the delta's tokens, sent when `request.include` asks for `message.output_text.logprobs`. */
  | {
      /** The part type. */
      type: 'text-delta';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The text to append. */
      delta: string;
      /** The delta's tokens' log probabilities, when `request.include` asks for `message.output_text.logprobs`. */
      logprobs?: LogProb[];
    }
  | {
      /** The part type. */
      type: 'text-end';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  | {
      /** The part type. */
      type: 'refusal-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  | {
      /** The part type. */
      type: 'refusal-delta';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The text to append. */
      delta: string;
    }
  | {
      /** The part type. */
      type: 'refusal-end';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  /** Ends the open part of message `id` (started by text-start or refusal-start) and opens another part in it. */
  | {
      /** The part type. */
      type: 'message-part-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The kind of the new part. */
      kind: 'text' | 'refusal';
    }
  /** An annotation (a URL citation, …) on the open text part of message `id`. */
  | {
      /** The part type. */
      type: 'text-annotation';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The annotation. */
      annotation: Annotation;
    }
  | {
      /** The part type. */
      type: 'reasoning-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  /** Raw reasoning text (the item's `reasoning_text` content). */
  | {
      /** The part type. */
      type: 'reasoning-delta';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The text to append. */
      delta: string;
    }
  /** Opens the next summary part of reasoning item `id`. */
  | {
      /** The part type. */
      type: 'reasoning-summary-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  | {
      /** The part type. */
      type: 'reasoning-summary-delta';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The text to append. */
      delta: string;
    }
  | {
      /** The part type. */
      type: 'reasoning-summary-end';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  /**
   * `state`: what the provider needs back to continue after this item on a later turn (Anthropic's thinking
   * signature). The turn runner seals it into the item's `encrypted_content` (returned when `include` asks
   * for it or the response is stored); `ModelRequest.openReasoning` gives it back.
   */
  | {
      /** The part type. */
      type: 'reasoning-end';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** What the provider needs back to continue after this item on a later turn. */
      state?: ReasoningState;
    }
  | {
      /** The part type. */
      type: 'function-call-start';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The function name. */
      name: string;
      /** The call id, when the upstream gave one. */
      callId?: string;
    }
  | {
      /** The part type. */
      type: 'function-call-delta';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
      /** The text to append. */
      delta: string;
    }
  | {
      /** The part type. */
      type: 'function-call-end';
      /** The provider's id of the item (any string unique within the turn). */
      id: string;
    }
  /** A whole output item, such as a hosted tool's vendor item (`acme:document_search_call`); streamed as added, then done. */
  | {
      /** The part type. */
      type: 'item';
      /** The item. */
      item: {
        /** The item type. */
        type: string;
        /** The item's id, when it has one. */
        id?: string;
        [key: string]: unknown;
      };
    }
  /** A vendor streaming event (`acme:progress`), sent while the response is in progress. */
  | {
      /** The part type. */
      type: 'vendor-event';
      /** The vendor event. */
      event: {
        /** A vendor type: `slug:name`. */
        type: `${string}:${string}`;
        [key: string]: unknown;
      };
    }
  | {
      /** The part type. */
      type: 'finish';
      /** Why the turn ended. */
      reason: FinishReason;
      /** The turn's token counts. */
      usage: ModelUsage;
    }
  /** The model failed: the response fails with a `model_error` (throw a `ResponsesError` for another type). */
  | {
      /** The part type. */
      type: 'error';
      /** The error code the failed response reports. */
      code: string;
      /** What went wrong. */
      message: string;
    };

/** A source of model output. The embedded deterministic model is one; an upstream adapter is another. */
export interface ModelProvider {
  /** The provider's name, in logs and errors. */
  readonly name: string;
  /**
   * `gen_ai.provider.name` in telemetry for the turns it serves (`openai`, `anthropic`: the OpenTelemetry
   * GenAI conventions' names where one fits); default its `name`.
   */
  readonly genAiProvider?: string;
  /** Whether this provider serves `model`. */
  supports(model: string): boolean;
  /**
   * Streams the parts of one turn. A `ResponsesError` thrown before the first part (an upstream's 429,
   * say) is answered as that error, with its headers, instead of a started response.
   */
  generate(request: ModelRequest): AsyncIterable<ModelPart>;
  /** Tokens of context the model accepts (for `truncation`). */
  readonly contextWindow: number;
  /** Model names to list on `GET /v1/models` (default: none). */
  listModels?(): Promise<string[]> | string[];
  /**
   * Its `text-delta` parts carry `logprobs` when `include` asks for them; for a provider without it, that
   * include is a 400 rather than an answer without the logprobs asked for.
   */
  readonly reportsLogprobs?: boolean;
  /**
   * Removes this provider's credentials (its upstream key, credential headers) and common secret shapes
   * from text; recordings and logs of what it served pass through it.
   */
  redact?(text: string): string;
}
