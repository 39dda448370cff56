import * as z from 'zod/v4';
import { invalidRequest } from '../../errors.js';
import { type ChatContentPart, requestSchema } from './wire.js';

/**
 * A Chat Completions request as the legacy `POST /v1/chat/completions` accepts it from a client: the wire
 * request, with `reasoning_effort` one of the efforts the Responses pipeline knows (so that a wrong one is
 * refused naming `reasoning_effort`, not `reasoning.effort`).
 */
export const legacyRequestSchema = requestSchema.extend({
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
});
export type LegacyChatRequest = z.infer<typeof legacyRequestSchema>;

/** What the Responses pipeline cannot express; refused rather than silently ignored. */
const UNSUPPORTED = [
  'logit_bias',
  'audio',
  'modalities',
  'prediction',
  'functions',
  'function_call',
  'web_search_options',
];

/**
 * Validates a legacy Chat Completions request and maps it to a Responses create body: messages become
 * items (assistant `tool_calls` become `function_call` items, `tool` messages their outputs), tools,
 * `tool_choice`, `response_format` (`text.format`; `json_object` as a schema of type object),
 * `max_tokens`/`max_completion_tokens` (`max_output_tokens`), `reasoning_effort` (`reasoning`).
 * What the pipeline cannot serve (`n` > 1, `stop`, `logprobs`, audio, …) is a 400 naming it.
 */
export function toResponsesBody(raw: unknown): { body: Record<string, unknown>; request: LegacyChatRequest } {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const refused = UNSUPPORTED.find((field) => (raw as Record<string, unknown>)[field] != null);
    if (refused)
      throw invalidRequest(
        'unsupported_parameter',
        `'${refused}' is not supported by this Chat Completions layer.`,
        refused,
      );
  }
  const parsed = legacyRequestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path
      .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
      .join('');
    throw invalidRequest(
      'invalid_value',
      `Invalid request: ${param ? `${param}: ` : ''}${issue.message}`,
      param || null,
    );
  }
  const request = parsed.data;
  if ((request.n ?? 1) !== 1) throw invalidRequest('unsupported_parameter', 'Only n = 1 is supported.', 'n');
  const stop = request.stop;
  if (stop && (typeof stop === 'string' || stop.length > 0))
    throw invalidRequest(
      'unsupported_parameter',
      "'stop' has no Responses equivalent; it is not supported here.",
      'stop',
    );
  if (request.logprobs) throw invalidRequest('unsupported_parameter', "'logprobs' is not supported here.", 'logprobs');

  const body: Record<string, unknown> = {
    model: request.model,
    input: inputItems(request.messages),
    store: request.store === true,
  };
  if (request.tools)
    body.tools = request.tools.map((t) =>
      Object.assign(
        { type: 'function', name: t.function.name },
        t.function.description ? { description: t.function.description } : {},
        {
          parameters: t.function.parameters ?? { type: 'object', properties: {} },
          strict: t.function.strict ?? false,
        },
      ),
    );
  const choice = request.tool_choice;
  if (choice !== undefined)
    body.tool_choice =
      typeof choice === 'string'
        ? choice
        : choice.type === 'function'
          ? { type: 'function', name: choice.function.name }
          : {
              type: 'allowed_tools',
              mode: choice.allowed_tools.mode,
              tools: choice.allowed_tools.tools.map((t) => ({ type: 'function', name: t.function.name })),
            };
  if (request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  const format = request.response_format;
  if (format?.type === 'json_schema')
    body.text = {
      format: Object.assign(
        { type: 'json_schema', name: format.json_schema.name, schema: format.json_schema.schema ?? {} },
        format.json_schema.description ? { description: format.json_schema.description } : {},
        format.json_schema.strict != null ? { strict: format.json_schema.strict } : {},
      ),
    };
  // The Responses spec has no json_object format: any JSON object is a schema of type object.
  else if (format?.type === 'json_object')
    body.text = { format: { type: 'json_schema', name: 'json_object', schema: { type: 'object' }, strict: false } };
  for (const [from, to] of [
    ['temperature', 'temperature'],
    ['top_p', 'top_p'],
    ['presence_penalty', 'presence_penalty'],
    ['frequency_penalty', 'frequency_penalty'],
    ['metadata', 'metadata'],
    ['prompt_cache_key', 'prompt_cache_key'],
  ] as const)
    if (request[from] != null) body[to] = request[from];
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) body.max_output_tokens = maxTokens;
  if (request.reasoning_effort) body.reasoning = { effort: request.reasoning_effort };
  const safety = request.safety_identifier ?? request.user;
  if (safety) body.safety_identifier = safety;
  if (request.top_logprobs) body.top_logprobs = request.top_logprobs;
  return { body, request };
}

function inputItems(messages: LegacyChatRequest['messages']): Array<Record<string, unknown>> {
  const input: Array<Record<string, unknown>> = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        input.push({ type: 'message', role: m.role, content: plain(m.content) });
        break;
      case 'user':
        input.push({
          type: 'message',
          role: 'user',
          content: typeof m.content === 'string' ? m.content : inputParts(m.content),
        });
        break;
      case 'assistant': {
        const content = m.content == null ? '' : plain(m.content);
        if (content || m.refusal)
          input.push({
            type: 'message',
            role: 'assistant',
            content: [
              ...(content ? [{ type: 'output_text', text: content, annotations: [] }] : []),
              ...(m.refusal ? [{ type: 'refusal', refusal: m.refusal }] : []),
            ],
          });
        for (const call of m.tool_calls ?? [])
          input.push({
            type: 'function_call',
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        break;
      }
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: m.tool_call_id,
          // Text stays a string; images and files make the output a parts list.
          output:
            typeof m.content === 'string' || m.content.every((part) => part.type === 'text')
              ? plain(m.content as string | Array<{ text: string }>)
              : inputParts(m.content),
        });
        break;
    }
  }
  return input;
}

function inputParts(parts: ChatContentPart[]): Array<Record<string, unknown>> {
  return parts.map((part) =>
    part.type === 'text'
      ? { type: 'input_text', text: part.text }
      : part.type === 'image_url'
        ? { type: 'input_image', image_url: part.image_url.url, detail: part.image_url.detail ?? 'auto' }
        : Object.assign({ type: 'input_file' }, part.file),
  );
}

function plain(content: string | Array<{ text: string }>): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}
