import type { ItemField } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';
import { LOGPROBS_INCLUDE, type ModelRequest } from '../provider.js';
import type { ChatContentPart, ChatMessage, ChatRequest, ChatToolCall, ChatToolChoice } from './wire.js';

/** How a turn becomes a Chat Completions request: the upstream's model name and the route's settings. */
export interface ChatRequestSettings {
  /** The model name the upstream knows. */
  upstreamModel: string;
  /** Body fields sent when the request does not set them (`temperature`, `stop`, `max_tokens`, any upstream-specific field). */
  defaults?: Record<string, unknown>;
  /** Which field carries `max_output_tokens` (default `max_tokens`, which every OpenAI-compatible server takes; OpenAI's reasoning models want `max_completion_tokens`). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Send `allowed_tools` as OpenAI's `tool_choice: { type: "allowed_tools" }` instead of sending only the allowed tools (default false: not every server knows it). */
  nativeAllowedTools?: boolean;
}

/**
 * A Responses turn as a Chat Completions request: instructions and system/developer messages become
 * system messages (most compatible servers refuse `developer`), user content keeps its text, images and
 * files, assistant messages and the function calls after them become one assistant message with
 * `tool_calls`, function outputs become `tool` messages. Reasoning items stay behind: Chat Completions
 * has no way to send them back.
 */
export function toChatRequest(request: ModelRequest, settings: ChatRequestSettings): ChatRequest {
  if (request.hostedTools.length > 0)
    throw invalidRequest(
      'unsupported_tool',
      `Tools of type '${request.hostedTools[0]!.type}' cannot be served by a Chat Completions upstream; only function tools can.`,
      'tools',
    );
  const model = settings.upstreamModel;
  const messages = toMessages(request);
  // Without route defaults, one literal (Object.assign's generic copy cost the JSON turn ~0.3 µs).
  const body: ChatRequest = settings.defaults
    ? (Object.assign({}, settings.defaults, { model, messages }) as ChatRequest)
    : { model, messages };
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  const { toolPolicy } = request;
  if (request.tools.length > 0) {
    const native = settings.nativeAllowedTools === true;
    const sent = native ? request.tools : request.tools.filter((tool) => toolPolicy.allowed.includes(tool.name));
    // With no tool allowed, `none` keeps the tools' descriptions (the model may still mention them).
    const tools = toolPolicy.mode === 'none' || sent.length === 0 ? request.tools : sent;
    body.tools = tools.map((tool) => ({
      type: 'function' as const,
      function: Object.assign(
        { name: tool.name },
        tool.description ? { description: tool.description } : {},
        tool.parameters ? { parameters: tool.parameters as Record<string, unknown> } : {},
        tool.strict != null ? { strict: tool.strict } : {},
      ),
    }));
    body.tool_choice = toolChoice(request, native);
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  const format = request.text?.format;
  if (format?.type === 'json_schema') {
    const schema = format as {
      name?: string;
      description?: string;
      schema?: Record<string, unknown>;
      strict?: boolean | null;
    };
    body.response_format = {
      type: 'json_schema',
      json_schema: Object.assign(
        { name: schema.name ?? 'response' },
        schema.description ? { description: schema.description } : {},
        schema.schema ? { schema: schema.schema } : {},
        schema.strict != null ? { strict: schema.strict } : {},
      ),
    };
  } else if ((format?.type as string | undefined) === 'json_object') body.response_format = { type: 'json_object' };
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.topP !== null) body.top_p = request.topP;
  if (request.presencePenalty !== null) body.presence_penalty = request.presencePenalty;
  if (request.frequencyPenalty !== null) body.frequency_penalty = request.frequencyPenalty;
  // Logprobs only when the answer shows them (`top_logprobs` alone changes nothing a client sees).
  if (request.include.includes(LOGPROBS_INCLUDE)) {
    body.logprobs = true;
    if (request.topLogprobs) body.top_logprobs = request.topLogprobs;
  }
  if (request.maxOutputTokens !== null) body[settings.maxTokensField ?? 'max_tokens'] = request.maxOutputTokens;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  if (request.safetyIdentifier) body.safety_identifier = request.safetyIdentifier;
  if (request.promptCacheKey) body.prompt_cache_key = request.promptCacheKey;
  return body;
}

function toolChoice(request: ModelRequest, native: boolean): ChatToolChoice {
  const { toolPolicy } = request;
  if (toolPolicy.mode === 'none' || toolPolicy.allowed.length === 0) return 'none';
  if (toolPolicy.forced) return { type: 'function', function: { name: toolPolicy.forced } };
  if (native && toolPolicy.allowed.length < request.tools.length)
    return {
      type: 'allowed_tools',
      allowed_tools: {
        mode: toolPolicy.mode,
        tools: toolPolicy.allowed.map((name) => ({ type: 'function' as const, function: { name } })),
      },
    };
  return toolPolicy.mode;
}

type Part = { type: string; text?: string; refusal?: string; [key: string]: unknown };

function toMessages(request: ModelRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.instructions) messages.push({ role: 'system', content: request.instructions });
  /** The assistant message that function calls join (calls right after an assistant message belong to it). */
  let assistant: Extract<ChatMessage, { role: 'assistant' }> | undefined;
  for (const item of request.items as Array<ItemField & Record<string, unknown>>) {
    switch (item.type) {
      case 'message': {
        const role = item.role as string;
        // A user's text as a string (the shortest way to write input) stays the string it is.
        if (typeof item.content === 'string' && role === 'user') {
          assistant = undefined;
          messages.push({ role: 'user', content: item.content });
          continue;
        }
        const parts = (
          typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content
        ) as Part[];
        if (role === 'assistant') {
          const text = parts
            .filter((p) => p.type === 'output_text' || p.type === 'input_text')
            .map((p) => p.text ?? '')
            .join('');
          const refusal = parts
            .filter((p) => p.type === 'refusal')
            .map((p) => p.refusal ?? '')
            .join('');
          assistant = Object.assign({ role: 'assistant' as const, content: text || null }, refusal ? { refusal } : {});
          messages.push(assistant);
          continue;
        }
        assistant = undefined;
        if (role === 'system' || role === 'developer') messages.push({ role: 'system', content: textOf(parts) });
        else messages.push({ role: 'user', content: userContent(parts) });
        break;
      }
      case 'function_call': {
        const call: ChatToolCall = {
          id: item.call_id as string,
          type: 'function',
          function: { name: item.name as string, arguments: item.arguments as string },
        };
        if (!assistant) {
          assistant = { role: 'assistant', content: null };
          messages.push(assistant);
        }
        (assistant.tool_calls ??= []).push(call);
        break;
      }
      case 'function_call_output': {
        assistant = undefined;
        const output = item.output;
        messages.push({
          role: 'tool',
          tool_call_id: item.call_id as string,
          content: typeof output === 'string' ? output : userContent(output as Part[]),
        });
        break;
      }
      default:
        // Reasoning, compaction and vendor items have no Chat Completions form.
        break;
    }
  }
  return messages;
}

function textOf(parts: Part[]): string {
  if (parts.length === 1) return parts[0]!.text ?? '';
  return parts.map((p) => p.text ?? '').join('');
}

/** Text alone stays a string (every server takes it); images and files make a parts array. */
function userContent(parts: Part[]): string | ChatContentPart[] {
  if (parts.every((p) => p.type === 'input_text' || p.type === 'output_text')) return textOf(parts);
  return parts.map((part): ChatContentPart => {
    switch (part.type) {
      case 'input_image':
        return {
          type: 'image_url',
          image_url: Object.assign(
            { url: (part.image_url as string | undefined) ?? '' },
            part.detail ? { detail: part.detail as 'auto' | 'low' | 'high' } : {},
          ),
        };
      case 'input_file':
        if (!part.file_data && !part.file_id)
          throw invalidRequest(
            'unsupported_content',
            'A Chat Completions upstream takes files as file_data or file_id, not file_url.',
            'input',
          );
        return {
          type: 'file',
          file: Object.assign(
            {},
            part.file_data ? { file_data: part.file_data as string } : {},
            part.file_id ? { file_id: part.file_id as string } : {},
            part.filename ? { filename: part.filename as string } : {},
          ),
        };
      default:
        return { type: 'text', text: part.text ?? '' };
    }
  });
}
