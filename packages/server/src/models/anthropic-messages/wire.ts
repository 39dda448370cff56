/**
 * The parts of Anthropic's Messages API (`POST /v1/messages`, `GET /v1/models`) that the gateway reads
 * and writes, as Zod schemas with the types inferred from them. What the upstream sends is parsed with
 * these before any of it becomes part of a response; objects are loose (fields the gateway does not use
 * pass through) and unknown block and event types are kept as their own member, because Anthropic's
 * versioning policy lets it add both without a new `anthropic-version`.
 */
import * as z from 'zod/v4';

// ---- What the gateway sends (built by request.ts; typed, not parsed) ----

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export type AnthropicDocumentSource =
  | { type: 'base64'; media_type: 'application/pdf'; data: string }
  | { type: 'text'; media_type: 'text/plain'; data: string }
  | { type: 'url'; url: string }
  | { type: 'file'; file_id: string };

export type AnthropicRequestBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'document'; source: AnthropicDocumentSource; title?: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | Array<Extract<AnthropicRequestBlock, { type: 'text' | 'image' | 'document' }>>;
      is_error?: boolean;
    };

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: AnthropicRequestBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
}

export type AnthropicToolChoice =
  | { type: 'auto'; disable_parallel_tool_use?: boolean }
  | { type: 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export type AnthropicThinking =
  | { type: 'enabled'; budget_tokens: number }
  | { type: 'adaptive' }
  | { type: 'disabled' };

export interface AnthropicRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: string | Array<{ type: 'text'; text: string }>;
  stream?: boolean;
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  thinking?: AnthropicThinking;
  output_config?: { effort?: string; format?: { type: 'json_schema'; schema: Record<string, unknown> } };
  metadata?: { user_id?: string };
  [setting: string]: unknown;
}

// ---- What the upstream sends (parsed) ----

const count = z.number().int().nonnegative();

export const usageSchema = z.looseObject({
  input_tokens: count.nullish(),
  output_tokens: count.nullish(),
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
  output_tokens_details: z.looseObject({ thinking_tokens: count.nullish() }).nullish(),
});
export type AnthropicUsage = z.infer<typeof usageSchema>;

export const stopReasonSchema = z.string();

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const thinkingBlock = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().nullish(),
});
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown(),
});
/** A member for the types Anthropic may add: any `type` but the known ones (a malformed known member must fail, not pass as unknown). */
const unknownType = (known: readonly string[]) =>
  z.looseObject({ type: z.string().refine((type) => !known.includes(type), { message: 'malformed' }) });

/** A block type this gateway does not know (server tool results, containers, …): kept, then skipped. */
const otherBlock = unknownType(['text', 'thinking', 'redacted_thinking', 'tool_use']);

const knownBlock = z.discriminatedUnion('type', [textBlock, thinkingBlock, redactedThinkingBlock, toolUseBlock]);
export const contentBlockSchema = z.union([knownBlock, otherBlock]);
export type AnthropicContentBlock = z.infer<typeof contentBlockSchema>;

/** A whole `message` (the answer of a request without `stream`). */
export const messageSchema = z.looseObject({
  type: z.literal('message'),
  id: z.string().optional(),
  role: z.literal('assistant'),
  model: z.string().optional(),
  content: z.array(contentBlockSchema),
  stop_reason: stopReasonSchema.nullish(),
  stop_sequence: z.string().nullish(),
  usage: usageSchema.nullish(),
});
export type AnthropicMessage = z.infer<typeof messageSchema>;

const errorBody = z.looseObject({ type: z.string(), message: z.string().optional() });
/** The body of an HTTP failure, and of a mid-stream `error` event. */
export const errorSchema = z.looseObject({ type: z.literal('error'), error: errorBody });

const deltaSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
]);

const index = z.number().int().nonnegative();

const EVENT_TYPES: readonly string[] = [
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
];

const knownEvent = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('message_start'),
    message: messageSchema.extend({ content: z.array(contentBlockSchema).optional() }),
  }),
  z.looseObject({ type: z.literal('content_block_start'), index, content_block: contentBlockSchema }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index,
    // A delta type this gateway does not know is skipped (the block's start said what the block is).
    delta: z.union([
      deltaSchema,
      unknownType(['text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta', 'citations_delta']),
    ]),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: stopReasonSchema.nullish(), stop_sequence: z.string().nullish() }),
    usage: usageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  errorSchema,
]);

/** One server-sent event of a streamed message; event types added later parse as the last member and are skipped. */
export const streamEventSchema = z.union([knownEvent, unknownType(EVENT_TYPES)]);

/** Whether a parsed event is one this gateway reads (the others are skipped). */
export const isKnownEvent = (event: { type: string }): event is AnthropicStreamEvent =>
  EVENT_TYPES.includes(event.type);
export type AnthropicStreamEvent = z.infer<typeof knownEvent>;

/** `GET /v1/models`: one page of the models the key may use. */
export const modelListSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1) })),
  has_more: z.boolean().optional(),
  last_id: z.string().nullish(),
});

/** What `encrypted_content` carries for this family (sealed by the turn runner, checked again when opened). */
export const thinkingStateSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('thinking'), thinking: z.string(), signature: z.string().min(1) }),
  z.strictObject({ kind: z.literal('redacted'), data: z.string().min(1) }),
]);
