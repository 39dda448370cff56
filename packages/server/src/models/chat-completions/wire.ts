/**
 * The Chat Completions wire format (OpenAI's `POST /v1/chat/completions`, as OpenAI, Ollama, vLLM,
 * llama.cpp's server, LM Studio and OpenRouter speak it), both directions, as Zod schemas with the types
 * inferred from them: the request (what the legacy endpoint accepts from clients, and what the gateway
 * sends upstream), the whole completion and the streamed chunks (what an upstream sends, parsed before any
 * of it becomes part of a response). Upstream objects are loose: fields the gateway does not read pass
 * through unchecked, and the nulls that vLLM and Ollama send for absent fields are accepted; what the
 * gateway reads is checked (a count is a non-negative integer, a delta a string, a call id a string).
 * Written here rather than taken from the `openai` package so that the server has no SDK at run time.
 */
import * as z from 'zod/v4';

// ---- The request ----

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const filePart = z.object({
  type: z.literal('file'),
  file: z.object({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
export const contentPartSchema = z.discriminatedUnion('type', [textPart, imagePart, filePart]);
export type ChatContentPart = z.infer<typeof contentPartSchema>;

/** Text, or text parts (sent joined). */
const textContent = z.union([z.string(), z.array(textPart)]);
const content = z.union([z.string(), z.array(contentPartSchema)]);

export const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ChatToolCall = z.infer<typeof toolCallSchema>;

export const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: textContent, name: z.string().optional() }),
  z.object({ role: z.literal('user'), content, name: z.string().optional() }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([textContent, z.null()]).optional(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCallSchema).optional(),
    name: z.string().optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content }),
]);
export type ChatMessage = z.infer<typeof messageSchema>;

export const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
export type ChatTool = z.infer<typeof toolSchema>;

const functionName = z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) });
export const toolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  functionName,
  z.object({
    type: z.literal('allowed_tools'),
    allowed_tools: z.object({ mode: z.enum(['auto', 'required']), tools: z.array(functionName) }),
  }),
]);
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;

export const responseFormatSchema = z.union([
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);
export type ChatResponseFormat = z.infer<typeof responseFormatSchema>;

/**
 * A request. Loose: a route's `defaults` may add any upstream-specific field; the legacy endpoint refuses
 * the fields it cannot serve by name and ignores the others.
 */
export const requestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormatSchema.optional(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  reasoning_effort: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  user: z.string().optional(),
  safety_identifier: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  seed: z.number().int().nullish(),
  n: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().nullish(),
});
export type ChatRequest = z.infer<typeof requestSchema>;

// ---- What an upstream sends ----

const count = z.number().int().nonnegative();

export const usageSchema = z.looseObject({
  prompt_tokens: count.nullish(),
  completion_tokens: count.nullish(),
  total_tokens: count.nullish(),
  prompt_tokens_details: z.looseObject({ cached_tokens: count.nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count.nullish() }).nullish(),
});
export type ChatUsage = z.infer<typeof usageSchema>;

const bytes = z.array(z.number().int().min(0).max(255)).nullish();

/** One token's log probability (`logprobs.content[]`); `bytes` may be null, and `top_logprobs` absent. */
export const tokenLogprobSchema = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  bytes,
  top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number(), bytes })).nullish(),
});
export type ChatTokenLogprob = z.infer<typeof tokenLogprobSchema>;

/** A choice's `logprobs` (sent when the request set `logprobs: true`): the content tokens, in order. */
export const logprobsSchema = z.looseObject({ content: z.array(tokenLogprobSchema).nullish() });
export type ChatLogprobs = z.infer<typeof logprobsSchema>;

/** `stop`, `length`, `tool_calls`, `content_filter`, `function_call`; servers add their own (read as `stop`). */
export const finishReasonSchema = z.string();
export type ChatFinishReason = z.infer<typeof finishReasonSchema>;

/** Text a delta or message carries: a string, or null/absent. */
const text = z.string().nullish();

/** A failure an upstream (OpenAI, vLLM) reports inside a stream: an error object, or its message alone. */
const streamError = z.union([
  z.string(),
  z.looseObject({ message: z.string().nullish(), type: z.string().nullish(), code: z.unknown().optional() }),
]);

/** One `chat.completion.chunk` of a streamed answer. */
export const chunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: z
          .looseObject({
            content: text,
            refusal: text,
            /** vLLM and DeepSeek stream raw reasoning here; Ollama and newer vLLM use `reasoning`. */
            reasoning_content: text,
            reasoning: text,
            tool_calls: z
              .array(
                z.looseObject({
                  index: count.nullish(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: text, arguments: text }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        /** The tokens of this chunk's `content`. */
        logprobs: logprobsSchema.nullish(),
        finish_reason: finishReasonSchema.nullish(),
      }),
    )
    .nullish(),
  usage: usageSchema.nullish(),
  error: streamError.nullish(),
});
export type ChatChunk = z.infer<typeof chunkSchema>;

/** A whole `chat.completion` (a non-streamed answer). */
export const completionSchema = z.looseObject({
  choices: z.array(
    z.looseObject({
      message: z.looseObject({
        content: text,
        refusal: text,
        reasoning_content: text,
        reasoning: text,
        tool_calls: z
          .array(
            z.looseObject({
              id: z.string().nullish(),
              function: z.looseObject({ name: z.string(), arguments: z.string() }),
            }),
          )
          .nullish(),
      }),
      logprobs: logprobsSchema.nullish(),
      finish_reason: finishReasonSchema.nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type ChatCompletion = z.infer<typeof completionSchema>;

/** Where and why a value broke its schema, for the error message (`choices[0].delta.content: expected string`). */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
  return path ? `${path}: ${issue.message}` : issue.message;
}
