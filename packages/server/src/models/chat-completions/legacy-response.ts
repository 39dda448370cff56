import { randomId, type AnyStreamingEvent, type StreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';

/**
 * A Responses turn's answer as the legacy `POST /v1/chat/completions` gives it: a finished response as a
 * `chat.completion`, a turn's events as `chat.completion.chunk`s.
 */

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

function chatId(response: ResponseResource): string {
  return `chatcmpl-${response.id.replace(/^resp_?/, '')}`;
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

/**
 * Encodes a turn's events as the SSE text of `chat.completion.chunk`s ('' for an event that makes none):
 * text, refusal and reasoning deltas, tool calls by index, the finish reason, and usage when
 * `stream_options.include_usage` asks for it. A failed turn ends with an `error` payload (which the
 * `openai` SDK raises); the caller ends the stream with `[DONE]`.
 */
export function chatChunkEncoder(model: string, includeUsage: boolean): (event: AnyStreamingEvent) => string {
  let id = `chatcmpl-${randomId('')}`;
  let created = Math.floor(Date.now() / 1000);
  let calls = 0;
  const sse = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finish: FinishReason | null = null) =>
    sse({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  return (any) => {
    const event = any as StreamingEvent;
    switch (event.type) {
      case 'response.created':
        id = chatId(event.response);
        created = event.response.created_at;
        return chunk({ role: 'assistant', content: '' });
      case 'response.output_text.delta':
        return chunk({ content: event.delta });
      case 'response.refusal.delta':
        return chunk({ refusal: event.delta });
      case 'response.reasoning.delta':
        return chunk({ reasoning_content: event.delta });
      case 'response.output_item.added': {
        if (event.item?.type !== 'function_call') return '';
        const call = event.item as { call_id: string; name: string };
        return chunk({
          tool_calls: [
            { index: calls++, id: call.call_id, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        });
      }
      case 'response.function_call_arguments.delta':
        return chunk({ tool_calls: [{ index: calls - 1, function: { arguments: event.delta } }] });
      case 'response.completed':
      case 'response.incomplete': {
        const last = chunk({}, finishReasonOf(event.response));
        if (!includeUsage) return last;
        return (
          last +
          sse({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(event.response) })
        );
      }
      case 'error':
        return sse({ error: event.error });
      default:
        return '';
    }
  };
}
