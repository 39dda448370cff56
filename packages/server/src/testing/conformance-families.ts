// The provider families under the provider conformance suite: how a scripted answer looks in each wire
// format (written from the published formats: OpenAI's Chat Completions chunks, Anthropic's Messages
// events, Gemini's GenerateContentResponse chunks), and where each carries tool results and reasoning on the
// way back.
import type { IncomingHttpHeaders } from 'node:http';
import { AnthropicMessagesProvider } from '../models/anthropic-messages/provider.js';
import { ChatCompletionsProvider } from '../models/chat-completions/provider.js';
import { GeminiProvider } from '../models/gemini/provider.js';
import type { ScriptedAnswer, WireAnswer, WireFamily } from './scripted-upstream.js';
import { openResponsesWire } from './conformance-open-responses.js';

/** The key the gateway sent, echoed in error bodies as real upstreams do (the gateway must redact it). */
const keyOf = (headers: IncomingHttpHeaders) =>
  (headers['x-api-key'] as string | undefined) ?? /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1] ?? '';

const deltasOf = (answer: ScriptedAnswer): string[] => ('deltas' in answer ? (answer.deltas ?? []) : []);
const callsOf = (answer: ScriptedAnswer) => ('calls' in answer ? (answer.calls ?? []) : []);

/** Chat Completions (`POST /v1/chat/completions`): `data:` chunks ending with `[DONE]`, or a whole completion. */
export const chatCompletionsWire: WireFamily = {
  name: 'chat-completions',
  provider: (rootUrl, apiKey) => new ChatCompletionsProvider({ baseUrl: `${rootUrl}/v1`, apiKey, timeoutMs: 5_000 }),
  render(answer, { body, headers }): WireAnswer {
    if (answer.kind === 'status')
      return {
        status: answer.status,
        headers: answer.retryAfter ? { 'retry-after': answer.retryAfter } : {},
        json: { error: { message: `Refused for key ${keyOf(headers)}`, type: 'invalid_request_error', code: null } },
      };
    const reasoning = answer.kind === 'reasoning' ? answer.reasoning : undefined;
    const calls = callsOf(answer);
    const text = deltasOf(answer);
    const finish = answer.kind === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 };
    if (body.stream !== true)
      return {
        status: 200,
        json: {
          id: 'chatcmpl-conf',
          object: 'chat.completion',
          choices: [
            {
              index: 0,
              message: Object.assign(
                { role: 'assistant', content: text.length > 0 ? text.join('') : null },
                reasoning ? { reasoning_content: reasoning } : {},
                calls.length > 0
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: { name: c.name, arguments: c.arguments },
                      })),
                    }
                  : {},
              ),
              finish_reason: finish,
            },
          ],
          usage,
        },
      };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-conf', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
    const events = [chunk({ role: 'assistant', content: '' })];
    if (reasoning) events.push(chunk({ reasoning_content: reasoning }));
    for (const delta of text) events.push(chunk({ content: delta }));
    calls.forEach((call, index) => {
      events.push(
        chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      );
      events.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
    });
    if (answer.kind === 'error-midstream')
      return {
        status: 200,
        events: [
          ...events,
          `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`,
        ],
      };
    if (answer.kind === 'cut' || answer.kind === 'hold') return { status: 200, events, after: answer.kind };
    events.push(chunk({}, finish));
    events.push(
      `data: ${JSON.stringify({ id: 'chatcmpl-conf', object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
    );
    events.push('data: [DONE]\n\n');
    return { status: 200, events };
  },
  toolResults: (body) =>
    ((body.messages ?? []) as Array<{ role: string; tool_call_id?: string; content?: unknown }>)
      .filter((m) => m.role === 'tool')
      .map((m) => ({ callId: m.tool_call_id!, output: String(m.content) })),
};

/** Anthropic Messages (`POST /v1/messages`): named events from `message_start` to `message_stop`, or a whole message. */
export const anthropicMessagesWire: WireFamily = {
  name: 'anthropic-messages',
  provider: (rootUrl, apiKey) => new AnthropicMessagesProvider({ baseUrl: rootUrl, apiKey, timeoutMs: 5_000 }),
  render(answer, { body, headers }): WireAnswer {
    if (answer.kind === 'status') {
      const type = {
        400: 'invalid_request_error',
        401: 'authentication_error',
        429: 'rate_limit_error',
        500: 'api_error',
        503: 'api_error',
      }[answer.status];
      return {
        status: answer.status,
        headers: answer.retryAfter ? { 'retry-after': answer.retryAfter } : {},
        json: { type: 'error', error: { type, message: `Refused for key ${keyOf(headers)}` } },
      };
    }
    const calls = callsOf(answer);
    const text = deltasOf(answer);
    const stopReason = answer.kind === 'length' ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: 9, output_tokens: 4 };
    type Block = Record<string, unknown> & { deltas: Array<Record<string, unknown>> };
    const blocks: Block[] = [];
    if (answer.kind === 'reasoning')
      blocks.push({
        type: 'thinking',
        thinking: '',
        signature: '',
        deltas: [
          { type: 'thinking_delta', thinking: answer.reasoning },
          { type: 'signature_delta', signature: answer.opaque },
        ],
      });
    if (text.length > 0)
      blocks.push({ type: 'text', text: '', deltas: text.map((t) => ({ type: 'text_delta', text: t })) });
    for (const call of calls)
      blocks.push({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: {},
        deltas: [{ type: 'input_json_delta', partial_json: call.arguments }],
      });
    if (body.stream !== true) {
      const content = blocks.map(({ deltas, ...block }) => {
        if (block.type === 'thinking')
          return {
            ...block,
            thinking: (deltas[0] as { thinking: string }).thinking,
            signature: (deltas[1] as { signature: string }).signature,
          };
        if (block.type === 'text') return { ...block, text: text.join('') };
        return { ...block, input: JSON.parse((deltas[0] as { partial_json: string }).partial_json) };
      });
      return {
        status: 200,
        json: {
          id: 'msg_conf',
          type: 'message',
          role: 'assistant',
          model: String(body.model),
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        },
      };
    }
    const event = (type: string, data: Record<string, unknown>) =>
      `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const events = [
      event('message_start', {
        message: {
          id: 'msg_conf',
          type: 'message',
          role: 'assistant',
          model: String(body.model),
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
    ];
    blocks.forEach(({ deltas, ...block }, index) => {
      events.push(event('content_block_start', { index, content_block: block }));
      for (const delta of deltas) events.push(event('content_block_delta', { index, delta }));
      if (answer.kind !== 'cut' && answer.kind !== 'hold' && answer.kind !== 'error-midstream')
        events.push(event('content_block_stop', { index }));
    });
    if (answer.kind === 'error-midstream')
      return {
        status: 200,
        events: [...events, event('error', { error: { type: 'api_error', message: 'Internal server error' } })],
      };
    if (answer.kind === 'cut' || answer.kind === 'hold') return { status: 200, events, after: answer.kind };
    events.push(
      event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 4 } }),
    );
    events.push(event('message_stop', {}));
    return { status: 200, events };
  },
  toolResults: (body) =>
    (
      (body.messages ?? []) as Array<{
        role: string;
        content: Array<{ type: string; tool_use_id?: string; content?: unknown }>;
      }>
    )
      .flatMap((m) => (m.role === 'user' ? m.content : []))
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({ callId: block.tool_use_id!, output: String(block.content) })),
  reasoningSentBack: (body) =>
    ((body.messages ?? []) as Array<{ role: string; content: Array<{ type: string; signature?: string }> }>)
      .flatMap((m) => (m.role === 'assistant' ? m.content : []))
      .filter((block) => block.type === 'thinking')
      .map((block) => block.signature!),
};

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * Gemini (`POST /v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`): CRLF-delimited
 * `data:` chunks of `GenerateContentResponse`, the last with `finishReason`, or a whole answer; errors in
 * Google's shape (a 429's delay in `RetryInfo`, not a header). The opaque token is a `thoughtSignature`, on the
 * first function call as Gemini 3 puts it (on the thought part when there is no call).
 */
export const geminiWire: WireFamily = {
  name: 'gemini',
  provider: (rootUrl, apiKey) => new GeminiProvider({ baseUrl: rootUrl, apiKey, timeoutMs: 5_000 }),
  render(answer, { headers, path }): WireAnswer {
    const key = (headers['x-goog-api-key'] as string | undefined) ?? '';
    if (answer.kind === 'status')
      return {
        status: answer.status,
        json: {
          error: {
            code: answer.status,
            message: `Refused for key ${key}`,
            status: GOOGLE_STATUS[answer.status],
            details: answer.retryAfter
              ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${answer.retryAfter}s` }]
              : [],
          },
        },
      };
    const calls = callsOf(answer);
    const text = deltasOf(answer);
    const parts: Array<Record<string, unknown>> = [];
    if (answer.kind === 'reasoning')
      parts.push(
        Object.assign(
          { text: answer.reasoning, thought: true },
          calls.length === 0 ? { thoughtSignature: answer.opaque } : {},
        ),
      );
    for (const delta of text) parts.push({ text: delta });
    for (const [index, call] of calls.entries())
      parts.push(
        Object.assign(
          { functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) } },
          answer.kind === 'reasoning' && index === 0 ? { thoughtSignature: answer.opaque } : {},
        ),
      );
    const finishReason = answer.kind === 'length' ? 'MAX_TOKENS' : 'STOP';
    const usageMetadata = { promptTokenCount: 9, candidatesTokenCount: 4, totalTokenCount: 13 };
    const candidate = (content: Array<Record<string, unknown>>, finish?: string) =>
      Object.assign({ content: { role: 'model', parts: content }, index: 0 }, finish ? { finishReason: finish } : {});
    if (!path.includes(':streamGenerateContent'))
      return {
        status: 200,
        json: { candidates: [candidate(parts, finishReason)], usageMetadata, modelVersion: 'conformance-model' },
      };
    const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;
    const events = parts.map((part) => chunk({ candidates: [candidate([part])], modelVersion: 'conformance-model' }));
    if (answer.kind === 'error-midstream')
      return {
        status: 200,
        events: [
          ...events,
          chunk({ error: { code: 500, message: 'Internal error encountered.', status: 'INTERNAL' } }),
        ],
      };
    if (answer.kind === 'cut' || answer.kind === 'hold') return { status: 200, events, after: answer.kind };
    events.push(chunk({ candidates: [candidate([{ text: '' }], finishReason)], usageMetadata }));
    return { status: 200, events };
  },
  toolResults: (body) =>
    ((body.contents ?? []) as Array<{ role: string; parts: Array<Record<string, unknown>> }>)
      .flatMap((content) => (content.role === 'user' ? content.parts : []))
      .flatMap((part) => {
        const response = part.functionResponse as { id?: string; response?: { output?: unknown } } | undefined;
        return response ? [{ callId: response.id!, output: String(response.response?.output) }] : [];
      }),
  reasoningSentBack: (body) =>
    ((body.contents ?? []) as Array<{ role: string; parts: Array<{ thoughtSignature?: string }> }>)
      .flatMap((content) => (content.role === 'model' ? content.parts : []))
      .flatMap((part) => (part.thoughtSignature ? [part.thoughtSignature] : [])),
};

/** Each family's wire, by its route `type` (`FAMILY_TYPES`): what tests that cover every family start. */
export const CONFORMANCE_WIRES: Readonly<Record<string, WireFamily>> = Object.fromEntries(
  [chatCompletionsWire, anthropicMessagesWire, geminiWire, openResponsesWire].map((wire) => [wire.name, wire]),
);
