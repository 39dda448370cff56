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

const textPart = z.object({
  /** `text`: text. */
  type: z.literal('text'),
  /** A text part's text. */
  text: z.string(),
});
const imagePart = z.object({
  /** `image_url`: an image. */
  type: z.literal('image_url'),
  /** An image part's image. */
  image_url: z.object({
    /** The image's URL, or its data as a `data:` URL. */
    url: z.string(),
    /** The detail the model sees the image at: `auto`, `low` or `high`. */
    detail: z.enum(['auto', 'low', 'high']).optional(),
  }),
});
const filePart = z.object({
  /** `file`: a file. */
  type: z.literal('file'),
  /** A file part's file: its data or its upstream id, and its name. */
  file: z.object({
    /** The file's content as a base64 `data:` URL. */
    file_data: z.string().optional(),
    /** The id of a file uploaded to the upstream. */
    file_id: z.string().optional(),
    /** The file's name. */
    filename: z.string().optional(),
  }),
});
export const contentPartSchema = z.discriminatedUnion('type', [textPart, imagePart, filePart]);
export type ChatContentPart = z.infer<typeof contentPartSchema>;

/** Text, or text parts (sent joined). */
const textContent = z.union([z.string(), z.array(textPart)]);
const content = z.union([z.string(), z.array(contentPartSchema)]);

export const toolCallSchema = z.object({
  /** The call's id, which the `tool` message answering it names. */
  id: z.string(),
  /** Always `function`. */
  type: z.literal('function'),
  /** The function called. */
  function: z.object({
    /** The function's name. */
    name: z.string(),
    /** Its arguments, a JSON string. */
    arguments: z.string(),
  }),
});
export type ChatToolCall = z.infer<typeof toolCallSchema>;

export const messageSchema = z.discriminatedUnion('role', [
  z.object({
    /** `system` or `developer`: instructions. */
    role: z.enum(['system', 'developer']),
    /** The instructions' text, or text parts (sent joined). */
    content: textContent,
    /** A name telling participants of the same role apart. */
    name: z.string().optional(),
  }),
  z.object({
    /** `user`: the end user. */
    role: z.literal('user'),
    /** The user's text, or parts with text, images and files. */
    content: content,
    /** A name telling users apart. */
    name: z.string().optional(),
  }),
  z.object({
    /** `assistant`: the model. */
    role: z.literal('assistant'),
    /** The model's text (null or absent when it only calls tools). */
    content: z.union([textContent, z.null()]).optional(),
    /** An assistant message's refusal text. */
    refusal: z.string().nullish(),
    /** The function calls an assistant message makes. */
    tool_calls: z.array(toolCallSchema).optional(),
    /** A name telling assistants apart. */
    name: z.string().optional(),
  }),
  z.object({
    /** `tool`: a function's output. */
    role: z.literal('tool'),
    /** The id of the call a `tool` message answers. */
    tool_call_id: z.string(),
    /** The function's output: text, or parts. */
    content: content,
  }),
]);
export type ChatMessage = z.infer<typeof messageSchema>;

export const toolSchema = z.object({
  /** Always `function`. */
  type: z.literal('function'),
  /** The function the model may call. */
  function: z.object({
    /** The function's name. */
    name: z.string(),
    /** What the function does, for the model. */
    description: z.string().optional(),
    /** Its arguments' JSON Schema. */
    parameters: z.record(z.string(), z.unknown()).optional(),
    /** Hold the arguments to the schema exactly (structured outputs). */
    strict: z.boolean().nullish(),
  }),
});
export type ChatTool = z.infer<typeof toolSchema>;

const functionName = z.object({
  /** `function`: names one function. */
  type: z.literal('function'),
  /** The function named. */
  function: z.object({
    /** The function's name. */
    name: z.string(),
  }),
});
export const toolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  functionName,
  z.object({
    /** `allowed_tools`: any of a subset of the tools. */
    type: z.literal('allowed_tools'),
    /** The tools the model may call this turn. */
    allowed_tools: z.object({
      /** `auto`: may call one of them; `required`: must. */
      mode: z.enum(['auto', 'required']),
      /** The functions allowed. */
      tools: z.array(functionName),
    }),
  }),
]);
export type ChatToolChoice = z.infer<typeof toolChoiceSchema>;

export const responseFormatSchema = z.union([
  z.object({
    /** `text`: plain text (the default). */
    type: z.literal('text'),
  }),
  z.object({
    /** `json_object`: any JSON object. */
    type: z.literal('json_object'),
  }),
  z.object({
    /** `json_schema`: JSON following `json_schema`. */
    type: z.literal('json_schema'),
    /** The schema the answer follows. */
    json_schema: z.object({
      /** The schema's name. */
      name: z.string(),
      /** What the answer is, for the model. */
      description: z.string().optional(),
      /** The JSON Schema itself. */
      schema: z.record(z.string(), z.unknown()).optional(),
      /** Hold the answer to the schema exactly. */
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
  /** The model to answer. */
  model: z.string().min(1),
  /** The conversation so far, oldest first. */
  messages: z.array(messageSchema).min(1),
  /** Stream the answer as chunks (server-sent events). */
  stream: z.boolean().nullish(),
  /** Options of a streamed answer. */
  stream_options: z
    .object({
      /** Send the usage in a last chunk. */
      include_usage: z.boolean().optional(),
    })
    .nullish(),
  /** The functions the model may call. */
  tools: z.array(toolSchema).optional(),
  /** Whether and which tool the model calls: `auto`, `none`, `required`, one function, or `allowed_tools`. */
  tool_choice: toolChoiceSchema.optional(),
  /** Whether the model may make several calls in one answer. */
  parallel_tool_calls: z.boolean().optional(),
  /** The shape of the answer: text, any JSON object, or JSON following a schema. */
  response_format: responseFormatSchema.optional(),
  /** Sampling temperature. */
  temperature: z.number().nullish(),
  /** Nucleus sampling: the probability mass the tokens are drawn from. */
  top_p: z.number().nullish(),
  /** Penalty for tokens already present at all. */
  presence_penalty: z.number().nullish(),
  /** Penalty for tokens by how often they appeared. */
  frequency_penalty: z.number().nullish(),
  /** Most tokens to generate (the older field). */
  max_tokens: z.number().int().positive().nullish(),
  /** Most tokens to generate, reasoning included (OpenAI's reasoning models). */
  max_completion_tokens: z.number().int().positive().nullish(),
  /** How hard a reasoning model thinks (`low`, `medium`, `high`, …). */
  reasoning_effort: z.string().nullish(),
  /** String key-value pairs stored with the request. */
  metadata: z.record(z.string(), z.string()).nullish(),
  /** Whether the upstream stores the completion. */
  store: z.boolean().nullish(),
  /** An end-user id (older form of `safety_identifier`). */
  user: z.string().optional(),
  /** A stable id of the end user, for abuse detection. */
  safety_identifier: z.string().optional(),
  /** A key grouping requests that share a prompt prefix, for the upstream's cache. */
  prompt_cache_key: z.string().optional(),
  /** Seed for repeatable sampling. */
  seed: z.number().int().nullish(),
  /** How many answers to generate. */
  n: z.number().int().nullish(),
  /** Sequences that end the answer. */
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  /** Return the output tokens' log probabilities. */
  logprobs: z.boolean().nullish(),
  /** How many most likely alternatives to return per token (with `logprobs`). */
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
