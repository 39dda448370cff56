/**
 * The parts of the Chat Completions wire format (OpenAI's `POST /v1/chat/completions`, as OpenAI,
 * Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter speak it) that the gateway reads and
 * writes. Written out here rather than taken from the `openai` package so that the server does not
 * depend on an SDK at run time; fields the gateway does not use are left out.
 */

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'developer'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      refusal?: string | null;
      tool_calls?: ChatToolCall[];
    }
  | { role: 'tool'; tool_call_id: string; content: string | ChatContentPart[] };

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ChatToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { type: 'function'; function: { name: string } }
  | {
      type: 'allowed_tools';
      allowed_tools: { mode: 'auto' | 'required'; tools: Array<{ type: 'function'; function: { name: string } }> };
    };

export type ChatResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
    };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ChatResponseFormat;
  temperature?: number;
  top_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  reasoning_effort?: string;
  safety_identifier?: string;
  prompt_cache_key?: string;
  [setting: string]: unknown;
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** One token's log probability (`logprobs.content[]`); `bytes` may be null, and `top_logprobs` absent. */
export interface ChatTokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: Array<{ token: string; logprob: number; bytes?: number[] | null }> | null;
}

/** A choice's `logprobs` (sent when the request set `logprobs: true`): the content tokens, in order. */
export interface ChatLogprobs {
  content?: ChatTokenLogprob[] | null;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

/** One `chat.completion.chunk` of a streamed answer. */
export interface ChatChunk {
  id?: string;
  object?: string;
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string;
      content?: string | null;
      refusal?: string | null;
      /** vLLM and DeepSeek stream raw reasoning here; Ollama and newer vLLM use `reasoning`. */
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: Array<{
        index: number;
        id?: string;
        type?: 'function';
        function?: { name?: string; arguments?: string };
      }>;
    };
    /** The tokens of this chunk's `content`. */
    logprobs?: ChatLogprobs | null;
    finish_reason?: ChatFinishReason | null;
  }>;
  usage?: ChatUsage | null;
  /** Some upstreams (OpenAI, vLLM) report a failure inside the stream. */
  error?: { message?: string; type?: string; code?: string | number | null };
}

/** A whole `chat.completion` (a non-streamed answer). */
export interface ChatCompletion {
  id?: string;
  choices: Array<{
    index?: number;
    message: {
      role?: string;
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      tool_calls?: ChatToolCall[] | null;
    };
    logprobs?: ChatLogprobs | null;
    finish_reason?: ChatFinishReason | null;
  }>;
  usage?: ChatUsage | null;
}
