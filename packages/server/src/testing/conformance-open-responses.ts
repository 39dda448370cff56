// The native Responses family under the provider conformance suite: a scripted answer rendered as a
// Responses server streams it (`POST /v1/responses`: OpenAI's event sequence, which vLLM and Ollama follow),
// or as its whole JSON response; with `quirks`, as the broken servers users report send it (no sequence
// numbers, an empty final `output`, a bare `error` event with no `response.failed`).
import type { IncomingHttpHeaders } from 'node:http';
import { OpenResponsesProvider } from '../models/open-responses/provider.js';
import type { ScriptedAnswer, WireAnswer, WireFamily } from './scripted-upstream.js';

/** How a quirky server breaks the stream (each one seen in a real server's output). */
export interface ResponsesQuirks {
  /** No `sequence_number` on any event (early Ollama, llama.cpp). */
  noSequenceNumbers?: boolean;
  /** `response.completed` with `output: []` (servers that stream items and never collect them). */
  emptyFinalOutput?: boolean;
  /** A mid-stream failure as a bare `error` event, with the code on the event and no `response.failed`. */
  bareErrors?: boolean;
  /** `response.reasoning_text.*` instead of the spec's `response.reasoning.*` (OpenAI, vLLM). */
  reasoningTextEvents?: boolean;
}

const keyOf = (headers: IncomingHttpHeaders) => /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1] ?? '';

/** A Responses server's wire, well-behaved or with `quirks`. */
export function responsesWire(quirks: ResponsesQuirks = {}, name = 'open-responses'): WireFamily {
  return {
    name,
    provider: (rootUrl, apiKey) => new OpenResponsesProvider({ baseUrl: `${rootUrl}/v1`, apiKey, timeoutMs: 5_000 }),
    render: (answer, request) => render(answer, request, quirks),
    toolResults: (body) =>
      ((body.input ?? []) as Array<{ type: string; call_id?: string; output?: unknown }>)
        .filter((item) => item.type === 'function_call_output')
        .map((item) => ({ callId: item.call_id!, output: String(item.output) })),
    reasoningSentBack: (body) =>
      ((body.input ?? []) as Array<{ type: string; encrypted_content?: string }>)
        .filter((item) => item.type === 'reasoning')
        .map((item) => item.encrypted_content!),
  };
}

/** A well-behaved Responses server (OpenAI's event sequence). */
export const openResponsesWire: WireFamily = responsesWire();

function render(
  answer: ScriptedAnswer,
  { body, headers }: { body: Record<string, unknown>; headers: IncomingHttpHeaders },
  quirks: ResponsesQuirks,
): WireAnswer {
  if (answer.kind === 'status')
    return {
      status: answer.status,
      headers: answer.retryAfter ? { 'retry-after': answer.retryAfter } : {},
      json: {
        error: {
          message: `Refused for key ${keyOf(headers)}`,
          type: answer.status === 429 ? 'rate_limit_error' : 'invalid_request_error',
          code: null,
          param: null,
        },
      },
    };
  const deltas = 'deltas' in answer ? (answer.deltas ?? []) : [];
  const calls = 'calls' in answer ? (answer.calls ?? []) : [];
  const output: Array<Record<string, unknown>> = [];
  if (answer.kind === 'reasoning')
    output.push({
      type: 'reasoning',
      id: 'rs_up_1',
      summary: [{ type: 'summary_text', text: answer.reasoning }],
      encrypted_content: answer.opaque,
    });
  if (deltas.length > 0)
    output.push({
      type: 'message',
      id: 'msg_up_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: deltas.join(''), annotations: [], logprobs: [] }],
    });
  for (const call of calls)
    output.push({
      type: 'function_call',
      id: `fc_up_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: 'completed',
    });
  const usage = {
    input_tokens: 9,
    output_tokens: 4,
    total_tokens: 13,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  const status = answer.kind === 'length' ? 'incomplete' : 'completed';
  const response = (state: string, out: unknown[]) => ({
    id: 'resp_up_1',
    object: 'response',
    created_at: 1_700_000_000,
    status: state,
    model: String(body.model),
    output: out,
    usage: state === 'in_progress' ? null : usage,
    incomplete_details: state === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    error: null,
  });
  if (body.stream !== true) return { status: 200, json: response(status, output) };

  let sequence = 0;
  const events: string[] = [];
  const emit = (type: string, data: Record<string, unknown>) => {
    const event = quirks.noSequenceNumbers ? { type, ...data } : { type, sequence_number: sequence++, ...data };
    events.push(`event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  emit('response.created', { response: response('in_progress', []) });
  emit('response.in_progress', { response: response('in_progress', []) });
  const cutShort = answer.kind === 'cut' || answer.kind === 'hold' || answer.kind === 'error-midstream';
  output.forEach((item, output_index) => {
    const item_id = item.id as string;
    if (item.type === 'reasoning') {
      const text = (item.summary as Array<{ text: string }>)[0]!.text;
      emit('response.output_item.added', { output_index, item: { ...item, summary: [], encrypted_content: null } });
      emit('response.reasoning_summary_part.added', {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      emit('response.reasoning_summary_text.delta', { item_id, output_index, summary_index: 0, delta: text });
      emit('response.reasoning_summary_text.done', { item_id, output_index, summary_index: 0, text });
      emit('response.reasoning_summary_part.done', {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text },
      });
      if (quirks.reasoningTextEvents)
        emit('response.reasoning_text.delta', { item_id, output_index, content_index: 0, delta: '' });
      emit('response.output_item.done', { output_index, item });
    } else if (item.type === 'message') {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', content: [] },
      });
      emit('response.content_part.added', {
        item_id,
        output_index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      });
      for (const delta of deltas)
        emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      if (cutShort) return;
      const part = (item.content as unknown[])[0];
      emit('response.output_text.done', {
        item_id,
        output_index,
        content_index: 0,
        text: deltas.join(''),
        logprobs: [],
      });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part });
      emit('response.output_item.done', { output_index, item });
    } else {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      emit('response.function_call_arguments.delta', { item_id, output_index, delta: item.arguments });
      emit('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
      emit('response.output_item.done', { output_index, item });
    }
  });
  if (answer.kind === 'error-midstream') {
    if (quirks.bareErrors) {
      events.push(
        `data: ${JSON.stringify({ type: 'error', code: 'server_error', message: 'The server had an error' })}\n\n`,
      );
      return { status: 200, events };
    }
    emit('error', { code: 'server_error', message: 'The server had an error', param: null });
    emit('response.failed', {
      response: { ...response('failed', []), error: { code: 'server_error', message: 'The server had an error' } },
    });
    return { status: 200, events };
  }
  if (answer.kind === 'cut' || answer.kind === 'hold') return { status: 200, events, after: answer.kind };
  emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
    response: response(status, quirks.emptyFinalOutput ? [] : output),
  });
  return { status: 200, events };
}
