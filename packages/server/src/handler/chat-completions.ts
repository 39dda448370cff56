import { randomId, type AnyStreamingEvent, type StreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { z } from 'zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { json, type ServiceResponse } from '../exchange.js';

/**
 * The legacy `POST /v1/chat/completions` endpoint (seed 004), served from the Responses pipeline: a
 * Chat Completions request becomes a Responses turn (messages -> items, tools, tool_choice,
 * response_format -> text.format, max_tokens -> max_output_tokens, reasoning_effort -> reasoning), and the
 * turn's response or events become a `chat.completion` or `chat.completion.chunk`s. Off by default.
 */

const text = z.object({ type: z.literal('text'), text: z.string() });
const image = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string(), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const file = z.object({
  type: z.literal('file'),
  file: z.object({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
const textContent = z.union([z.string(), z.array(text)]);
const toolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
const message = z.discriminatedUnion('role', [
  z.object({ role: z.enum(['system', 'developer']), content: textContent, name: z.string().optional() }),
  z.object({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [text, image, file]))]),
    name: z.string().optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.union([textContent, z.null()]).optional(),
    refusal: z.string().nullish(),
    tool_calls: z.array(toolCall).optional(),
    name: z.string().optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: textContent }),
]);
const functionName = z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) });
const requestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(message).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  tools: z
    .array(
      z.object({
        type: z.literal('function'),
        function: z.object({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
          strict: z.boolean().nullish(),
        }),
      }),
    )
    .optional(),
  tool_choice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      functionName,
      z.object({
        type: z.literal('allowed_tools'),
        allowed_tools: z.object({ mode: z.enum(['auto', 'required']), tools: z.array(functionName) }),
      }),
    ])
    .optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z
    .union([
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
    ])
    .optional(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
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
type ChatCompletionsRequest = z.infer<typeof requestSchema>;

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

/** Validates a Chat Completions request and maps it to a Responses create body. */
export function toResponsesBody(raw: unknown): { body: Record<string, unknown>; request: ChatCompletionsRequest } {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const refused = UNSUPPORTED.find((field) => (raw as Record<string, unknown>)[field] != null);
    if (refused)
      throw invalidRequest(
        'unsupported_parameter',
        `'${refused}' is not supported by this Chat Completions layer.`,
        refused,
      );
  }
  const parsed = requestSchema.safeParse(raw);
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

  const input: Array<Record<string, unknown>> = [];
  for (const m of request.messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        input.push({ type: 'message', role: m.role, content: plain(m.content) });
        break;
      case 'user':
        input.push({
          type: 'message',
          role: 'user',
          content:
            typeof m.content === 'string'
              ? m.content
              : m.content.map((part) =>
                  part.type === 'text'
                    ? { type: 'input_text', text: part.text }
                    : part.type === 'image_url'
                      ? { type: 'input_image', image_url: part.image_url.url, detail: part.image_url.detail ?? 'auto' }
                      : Object.assign({ type: 'input_file' }, part.file),
                ),
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
        input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: plain(m.content) });
        break;
    }
  }
  const body: Record<string, unknown> = { model: request.model, input, store: request.store === true };
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

function plain(content: string | Array<{ text: string }>): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

function finishReasonOf(response: ResponseResource): FinishReason {
  if (response.status === 'incomplete')
    return (response.incomplete_details as { reason?: string } | null)?.reason === 'content_filter'
      ? 'content_filter'
      : 'length';
  return response.output.some((item) => item.type === 'function_call') ? 'tool_calls' : 'stop';
}

function usageOf(response: ResponseResource) {
  const usage = response.usage;
  if (!usage) return null;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
  };
}

/** A finished response as a `chat.completion`. */
export function toChatCompletion(response: ResponseResource): Record<string, unknown> {
  let content = '';
  let refusal = '';
  let reasoning = '';
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type === 'message')
      for (const part of item.content as Array<{ type: string; text?: string; refusal?: string }>) {
        if (part.type === 'output_text') content += part.text ?? '';
        else if (part.type === 'refusal') refusal += part.refusal ?? '';
      }
    else if (item.type === 'reasoning')
      reasoning += ((item.content as Array<{ text?: string }> | undefined) ?? []).map((p) => p.text ?? '').join('');
    else if (item.type === 'function_call')
      toolCalls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
  }
  const message: Record<string, unknown> = { role: 'assistant', content: content || null, refusal: refusal || null };
  if (reasoning) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: chatId(response),
    object: 'chat.completion',
    created: response.created_at,
    model: response.model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(response), logprobs: null }],
    usage: usageOf(response),
  };
}

function chatId(response: ResponseResource): string {
  return `chatcmpl-${response.id.replace(/^resp_?/, '')}`;
}

/**
 * Streams a turn's events as `chat.completion.chunk`s: text, refusal and reasoning deltas, tool calls by
 * index, the finish reason, and usage when `stream_options.include_usage` asks for it. A failed turn
 * ends with an `error` payload (which the `openai` SDK raises), then `[DONE]`.
 */
export function chunkWriter(write: (chunk: string) => void, model: string, includeUsage: boolean) {
  let id = `chatcmpl-${randomId('')}`;
  let created = Math.floor(Date.now() / 1000);
  let calls = 0;
  const send = (payload: unknown) => write(`data: ${JSON.stringify(payload)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: FinishReason | null = null) =>
    send({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  return (any: AnyStreamingEvent) => {
    const event = any as StreamingEvent;
    switch (event.type) {
      case 'response.created':
        id = chatId(event.response);
        created = event.response.created_at;
        chunk({ role: 'assistant', content: '' });
        break;
      case 'response.output_text.delta':
        chunk({ content: event.delta });
        break;
      case 'response.refusal.delta':
        chunk({ refusal: event.delta });
        break;
      case 'response.reasoning.delta':
        chunk({ reasoning_content: event.delta });
        break;
      case 'response.output_item.added':
        if (event.item?.type === 'function_call') {
          const call = event.item as { call_id: string; name: string };
          chunk({
            tool_calls: [
              { index: calls++, id: call.call_id, type: 'function', function: { name: call.name, arguments: '' } },
            ],
          });
        }
        break;
      case 'response.function_call_arguments.delta':
        chunk({ tool_calls: [{ index: calls - 1, function: { arguments: event.delta } }] });
        break;
      case 'response.completed':
      case 'response.incomplete': {
        chunk({}, finishReasonOf(event.response));
        if (includeUsage)
          send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(event.response) });
        break;
      }
      case 'error':
        send({ error: event.error });
        break;
    }
  };
}

/** Starts a Responses turn for a mapped body (`watched`: the client streams); resolves once the model has begun. */
export type BeginTurn = (
  body: Record<string, unknown>,
  watched: boolean,
) => Promise<
  (onEvent?: (event: AnyStreamingEvent) => void) => Promise<{ response: ResponseResource; error?: ResponsesError }>
>;

/** Answers one `POST /v1/chat/completions`: JSON, or `chat.completion.chunk`s ending with `[DONE]`. */
export async function serveChatCompletions(
  raw: unknown,
  begin: BeginTurn,
  headers: Record<string, string>,
): Promise<ServiceResponse> {
  const { body, request } = toResponsesBody(raw);
  const streaming = request.stream === true;
  if (streaming) body.stream = true;
  const run = await begin(body, streaming);
  if (!streaming) {
    const result = await run();
    if (result.error) throw result.error;
    return json(200, toChatCompletion(result.response), headers);
  }
  return {
    status: 200,
    headers: Object.assign(
      { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      headers,
    ),
    body: {
      pipe: async (write) => {
        const onEvent = chunkWriter(write, request.model, request.stream_options?.include_usage === true);
        try {
          await run(onEvent);
        } catch (error) {
          // Model and store failures were already sent as an error chunk; anything else is a server bug.
          if (!(error instanceof ResponsesError)) throw error;
        }
        write('data: [DONE]\n\n');
      },
    },
  };
}
