// The streaming provider contract: a provider's parts become spec events as they arrive, interleaved
// items are streamed one at a time in the order they started, finish reasons map to response states,
// and a provider that fails before its first part is answered as a plain error (with its headers).
import { checkStream, type AnyStreamingEvent } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ResponsesError, type ModelPart, type ModelProvider } from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { post, startTestServer, stream } from './harness.js';

/** A provider that plays back the parts listed for the model name it is asked for. */
function scripted(scripts: Record<string, () => AsyncIterable<ModelPart>>): ModelProvider {
  return {
    name: 'scripted',
    contextWindow: 10_000,
    supports: (model) => model in scripts,
    generate: (request) => scripts[request.model]!(),
  };
}

const usage = { inputTokens: 7, outputTokens: 11, reasoningTokens: 3, cachedInputTokens: 2 };
const weather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const time = { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {} } };

let server: RunningServer;
let release: () => void = () => {};
beforeAll(async () => {
  server = await startTestServer({
    providers: [
      scripted({
        async *interleaved() {
          yield { type: 'reasoning-start', id: 'r' };
          yield { type: 'reasoning-delta', id: 'r', delta: 'Two calls.' };
          yield { type: 'function-call-start', id: '0', name: 'get_weather', callId: 'call_a' };
          yield { type: 'function-call-start', id: '1', name: 'get_time', callId: 'call_b' };
          yield { type: 'function-call-delta', id: '1', delta: '{}' };
          yield { type: 'reasoning-end', id: 'r' };
          yield { type: 'function-call-delta', id: '0', delta: '{"city":' };
          yield { type: 'function-call-delta', id: '0', delta: '"Paris"}' };
          yield { type: 'finish', reason: 'tool_calls', usage };
        },
        async *length() {
          yield { type: 'text-start', id: 't' };
          yield { type: 'text-delta', id: 't', delta: 'cut here' };
          yield { type: 'finish', reason: 'length', usage };
        },
        async *filtered() {
          yield { type: 'text-start', id: 't' };
          yield { type: 'text-delta', id: 't', delta: 'I was about to' };
          yield { type: 'finish', reason: 'content_filter', usage };
        },
        async *unfinished() {
          yield { type: 'text-start', id: 't' };
          yield { type: 'text-delta', id: 't', delta: 'and then' };
        },
        async *unstarted() {
          yield { type: 'text-delta', id: 'nope', delta: 'x' };
        },
        limited: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () =>
              Promise.reject(
                new ResponsesError('too_many_requests', 'rate_limited', 'Slow down.', null, 429, {
                  headers: { 'retry-after': '7' },
                }),
              ),
          }),
        }),
        async *held() {
          yield { type: 'text-start', id: 't' };
          yield { type: 'text-delta', id: 't', delta: 'first' };
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          yield { type: 'text-delta', id: 't', delta: ' second' };
          yield { type: 'text-end', id: 't' };
          yield { type: 'finish', reason: 'stop', usage };
        },
      }),
    ],
  });
});
afterAll(() => server.close());

describe('parts become spec events', () => {
  test('interleaved function calls stream one at a time in the order they started; usage is the provider’s', async () => {
    const { events, violations } = await stream(server, { model: 'interleaved', input: 'x', tools: [weather, time] });
    expect(violations).toEqual([]);
    const added = events
      .filter((e) => e.type === 'response.output_item.added')
      .map((e) => (e as never as { item: { type: string } }).item.type);
    expect(added).toEqual(['reasoning', 'function_call', 'function_call']);
    const final = (events.at(-1) as { response: Record<string, unknown> }).response;
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject([
      { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Two calls.' }] },
      { type: 'function_call', name: 'get_weather', call_id: 'call_a', arguments: '{"city":"Paris"}' },
      { type: 'function_call', name: 'get_time', call_id: 'call_b', arguments: '{}' },
    ]);
    expect(final.usage).toEqual({
      input_tokens: 7,
      output_tokens: 11,
      total_tokens: 18,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens_details: { reasoning_tokens: 3 },
    });
  });

  test('max_tool_calls drops calls past it, whatever the provider sends', async () => {
    const response = await post(server, '/v1/responses', {
      model: 'interleaved',
      input: 'x',
      tools: [weather, time],
      max_tool_calls: 1,
    });
    const body = (await response.json()) as { output: Array<{ type: string; name?: string }> };
    expect(body.output.map((i) => i.name ?? i.type)).toEqual(['reasoning', 'get_weather']);
  });

  test('a call tool_choice does not allow fails the response', async () => {
    const { events } = await stream(server, {
      model: 'interleaved',
      input: 'x',
      tools: [weather, time],
      tool_choice: { type: 'function', name: 'get_time' },
    });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ error: { code: 'tool_not_allowed' } });
    expect(events.at(-1)?.type).toBe('response.failed');
  });

  test.each([
    ['length', 'max_output_tokens'],
    ['filtered', 'content_filter'],
  ])('finish %s ends the response incomplete (%s), the open item too', async (model, reason) => {
    const { events, violations } = await stream(server, { model, input: 'x' });
    expect(violations).toEqual([]);
    const final = (events.at(-1) as { type: string; response: Record<string, unknown> }).response;
    expect(events.at(-1)?.type).toBe('response.incomplete');
    expect(final.incomplete_details).toEqual({ reason });
    expect(final.output).toMatchObject([{ type: 'message', status: 'incomplete' }]);
  });

  test('a stream that stops without finish, or sends a part it never started, fails', async () => {
    for (const [model, code] of [
      ['unfinished', 'model_stream_ended'],
      ['unstarted', 'invalid_model_stream'],
    ]) {
      const { events, violations } = await stream(server, { model, input: 'x' });
      expect(violations).toEqual([]);
      expect(events.find((e) => e.type === 'error')).toMatchObject({ error: { type: 'model_error', code } });
      expect(events.at(-1)?.type).toBe('response.failed');
    }
  });

  test('a provider failing before its first part is a plain error with its headers, streaming or not', async () => {
    for (const streaming of [false, true]) {
      const response = await post(server, '/v1/responses', { model: 'limited', input: 'x', stream: streaming });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(await response.json()).toEqual({
        error: { type: 'too_many_requests', code: 'rate_limited', param: null, message: 'Slow down.' },
      });
    }
  });

  test('deltas leave the server as the provider yields them', async () => {
    const response = await post(server, '/v1/responses', { model: 'held', input: 'x', stream: true });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('"delta":"first"')) text += (await reader.read()).value;
    // The provider is still waiting: nothing past the first delta exists yet.
    expect(text).not.toContain('second');
    release();
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += next.value;
    expect(text).toContain('"delta":" second"');
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as AnyStreamingEvent);
    expect(checkStream(events, { sawDone: text.includes('data: [DONE]') })).toEqual([]);
  });
});
