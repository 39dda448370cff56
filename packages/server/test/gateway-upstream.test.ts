// The gateway in front of a real HTTP upstream on 127.0.0.1 that replays recorded Chat Completions
// streams (OpenAI, Ollama, vLLM wire formats, and broken ones). Each test checks what the client sees
// (the official openai package, the AI SDK, raw SSE through the stream checker) and what the upstream
// received from the gateway.
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { ChatCompletionsProvider, DeterministicModel } from '../src/index.js';
import { nodeFetch, type RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';
import { modelRequest } from './model-request.js';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';

const UPSTREAM_KEY = 'sk-upstream-secret-4f9a2c';

let upstream: ReplayUpstream;
let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  server = await startTestServer({
    providers: [
      new DeterministicModel(),
      // The Node entry's upstream fetch (node:http); the legacy-endpoint tests use the global fetch.
      new ChatCompletionsProvider({
        baseUrl: upstream.baseUrl,
        apiKey: UPSTREAM_KEY,
        timeoutMs: 1_000,
        fetch: nodeFetch,
      }),
    ],
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
  upstream.delayMs = 0;
});

const lastSent = () => upstream.received.at(-1)!;
const finalOf = (events: Array<{ type: string }>) =>
  (events.at(-1) as unknown as { response: Record<string, unknown> }).response;

describe('text', () => {
  test('an OpenAI stream reaches the openai SDK; the upstream got the mapped request with the gateway’s key', async () => {
    const events: Array<{ type: string; delta?: string }> = [];
    const response = await client.responses.create({
      model: 'openai-text',
      instructions: 'Be brief.',
      input: 'Say hello',
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 50,
      stream: true,
    });
    for await (const event of response) events.push(event);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual([
      'Hello',
      ' from',
      ' the upstream.',
    ]);
    const final = finalOf(events);
    expect(final.status).toBe('completed');
    expect(final.usage).toEqual({
      input_tokens: 19,
      output_tokens: 5,
      total_tokens: 24,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    const sent = lastSent();
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body).toEqual({
      model: 'openai-text',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 50,
    });
  });

  test('a JSON answer asks the upstream for a whole completion', async () => {
    const response = await client.responses.create({ model: 'openai-text', input: 'Say hello' });
    expect(response.output_text).toBe('Hello from the upstream.');
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(8);
    expect(lastSent().body.stream).toBeUndefined();
  });

  test('the AI SDK streams through the gateway', async () => {
    const provider = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY });
    const result = streamText({ model: provider.responses('openai-text'), prompt: 'Say hello', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Hello from the upstream.');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBe(19);
  });

  test('a refusal stream becomes a refusal part', async () => {
    const { events, violations } = await stream(server, { model: 'openai-refusal', input: 'x' });
    expect(violations).toEqual([]);
    expect(finalOf(events).output).toMatchObject([
      { type: 'message', content: [{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }] },
    ]);
  });
});

describe('logprobs', () => {
  // What the recording's tokens must become, in the spec's LogProb shape (bytes are UTF-8; the
  // recording leaves the fourth token's bytes null, as some compatible servers do).
  const utf8 = (text: string) => [...Buffer.from(text, 'utf8')];
  const token = (text: string, logprob: number, top: Array<[string, number]>) => ({
    token: text,
    logprob,
    bytes: utf8(text),
    top_logprobs: top.map(([t, l]) => ({ token: t, logprob: l, bytes: utf8(t) })),
  });
  const expected = [
    token('Hello', -0.0003, [
      ['Hello', -0.0003],
      ['Hi', -8.21],
    ]),
    token(' from', -0.12, [
      [' from', -0.12],
      [' to', -2.4],
    ]),
    token(' the', -0.02, [
      [' the', -0.02],
      [' a', -4.1],
    ]),
    token(' café', -1.37, [
      [' café', -1.37],
      [' upstream', -0.41],
    ]),
    token('.', -0.0001, [
      ['.', -0.0001],
      ['!', -9.6],
    ]),
  ];

  test('streamed upstream logprobs become output_text logprobs and delta logprobs (the openai SDK reads them)', async () => {
    const response = await client.responses.create({
      model: 'openai-logprobs',
      input: 'Say hello',
      include: ['message.output_text.logprobs'],
      top_logprobs: 2,
      stream: true,
    });
    const events: Array<{ type: string; logprobs?: unknown[] }> = [];
    for await (const event of response) events.push(event);
    expect(lastSent().body).toMatchObject({ logprobs: true, top_logprobs: 2, stream: true });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((e) => e.logprobs)).toEqual(expected.map((t) => [t]));
    const part = (finalOf(events).output as Array<{ content: Array<{ text: string; logprobs: unknown[] }> }>)[0]!
      .content[0]!;
    expect(part.text).toBe('Hello from the café.');
    expect(part.logprobs).toEqual(expected);
  });

  test('a JSON answer maps the whole completion’s logprobs; the stream checker accepts the streamed ones', async () => {
    const response = await client.responses.create({
      model: 'openai-logprobs',
      input: 'Say hello',
      include: ['message.output_text.logprobs'],
      top_logprobs: 2,
    });
    const part = response.output[0]!.type === 'message' ? response.output[0]!.content[0]! : undefined;
    expect(part).toMatchObject({ type: 'output_text', text: 'Hello from the café.', logprobs: expected });
    const { violations } = await stream(server, {
      model: 'openai-logprobs',
      input: 'x',
      include: ['message.output_text.logprobs'],
    });
    expect(violations).toEqual([]);
  });

  test('logprobs are asked upstream only when the answer shows them; an upstream that answers without them is refused naming include, never ignored', async () => {
    await client.responses.create({ model: 'openai-text', input: 'x', top_logprobs: 3 });
    expect(lastSent().body).not.toHaveProperty('logprobs');
    expect(lastSent().body).not.toHaveProperty('top_logprobs');
    for (const stream of [false, true]) {
      const response = await post(server, '/v1/responses', {
        model: 'openai-text',
        input: 'x',
        include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
        stream,
      });
      expect(lastSent().body).toMatchObject({ logprobs: true });
      expect(lastSent().body).not.toHaveProperty('top_logprobs');
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: Record<string, unknown> }).error).toMatchObject({
        type: 'invalid_request',
        code: 'unsupported_include',
        param: 'include[1]',
      });
    }
  });
});

describe('reasoning', () => {
  test.each([
    ['vllm-reasoning', 'Nine point eleven is larger than nine point eight? No.', '9.8 is larger.'],
    ['ollama-thinking', 'The user greets me. Reply briefly.', 'Hi there!'],
  ])('%s: streamed reasoning becomes a reasoning item before the message', async (model, thought, answer) => {
    const { events, violations } = await stream(server, {
      model,
      input: 'Which is larger, 9.11 or 9.8?',
      include: ['reasoning.encrypted_content'],
    });
    expect(violations).toEqual([]);
    expect(events.some((e) => e.type === 'response.reasoning.delta')).toBe(true);
    const final = finalOf(events);
    expect(final.output).toMatchObject([
      { type: 'reasoning', content: [{ type: 'reasoning_text', text: thought }] },
      { type: 'message', content: [{ type: 'output_text', text: answer }] },
    ]);
    expect((final.output as Array<{ encrypted_content?: string }>)[0]!.encrypted_content).toMatch(/^or3\./);
  });

  test('reasoning effort is passed on; earlier reasoning items are not sent back', async () => {
    const first = await client.responses.create({
      model: 'vllm-reasoning',
      input: 'Which is larger?',
      reasoning: { effort: 'low' },
    });
    expect(lastSent().body.reasoning_effort).toBe('low');
    await client.responses.create({ model: 'openai-text', input: 'And now?', previous_response_id: first.id });
    expect(lastSent().body.messages).toEqual([
      { role: 'user', content: 'Which is larger?' },
      { role: 'assistant', content: '9.8 is larger.' },
      { role: 'user', content: 'And now?' },
    ]);
  });
});

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const time = {
  type: 'function' as const,
  name: 'get_time',
  description: 'Time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

describe('tools', () => {
  test('parallel calls (OpenAI) become function_call items; tools, tool_choice and parallel_tool_calls are passed on', async () => {
    const { events, violations } = await stream(server, {
      model: 'openai-parallel-tools',
      input: 'Weather and time in Paris?',
      tools: [weather, time],
      tool_choice: 'required',
      parallel_tool_calls: true,
    });
    expect(violations).toEqual([]);
    expect(finalOf(events).output).toMatchObject([
      { type: 'function_call', call_id: 'call_weather_1', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { type: 'function_call', call_id: 'call_time_2', name: 'get_time', arguments: '{"city": "Paris"}' },
    ]);
    expect(lastSent().body).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: weather.parameters,
            strict: true,
          },
        },
        {
          type: 'function',
          function: { name: 'get_time', description: 'Time in a city', parameters: time.parameters, strict: false },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: true,
    });
  });

  test('interleaved argument fragments are put together by index', async () => {
    const { events, violations } = await stream(server, {
      model: 'interleaved-tools',
      input: 'x',
      tools: [weather, time],
    });
    expect(violations).toEqual([]);
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(finalOf(events).output).toMatchObject([
      { call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { call_id: 'call_b', name: 'get_time', arguments: '{"city":"Oslo"}' },
    ]);
  });

  test('a forced function and allowed_tools send only what may be called', async () => {
    await client.responses.create({
      model: 'ollama-tool',
      input: 'x',
      tools: [weather, time],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(lastSent().body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect((lastSent().body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      'get_weather',
    ]);
    await client.responses.create({
      model: 'ollama-tool',
      input: 'x',
      tools: [weather, time],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'get_weather' }] },
    });
    expect(lastSent().body.tool_choice).toBe('auto');
    expect((lastSent().body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      'get_weather',
    ]);
  });

  test('a call the policy forbids fails the response, whatever the upstream does', async () => {
    const { events, violations } = await stream(server, {
      model: 'ollama-tool',
      input: 'x',
      tools: [weather, time],
      tool_choice: { type: 'function', name: 'get_time' },
    });
    expect(violations).toEqual([]);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ error: { code: 'tool_not_allowed' } });
  });

  test('a tool round trip: history goes up as assistant tool_calls and tool messages', async () => {
    const first = await client.responses.create({ model: 'ollama-tool', input: 'Weather in Paris?', tools: [weather] });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'call_k2x8rb', arguments: '{"city":"Paris"}' });
    await client.responses.create({
      model: 'openai-text',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_k2x8rb', output: '{"temp":21}' }],
      tools: [weather],
    });
    expect(lastSent().body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_k2x8rb', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_k2x8rb', content: '{"temp":21}' },
    ]);
  });
});

describe('request mapping', () => {
  test('system and developer messages, images, assistant history and text.format', async () => {
    await client.responses.create({
      model: 'openai-text',
      input: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'https://example.com/cat.png', detail: 'low' },
          ],
        },
        { role: 'assistant', content: 'Un chat.' },
        { role: 'user', content: 'Sure?' },
      ],
      text: {
        format: {
          type: 'json_schema',
          name: 'answer',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          strict: true,
        },
      },
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      safety_identifier: 'user-42',
      prompt_cache_key: 'cache-1',
      // The spec's penalties, which the SDK's Responses types do not list.
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(lastSent().body).toEqual({
      model: 'openai-text',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'system', content: 'Answer in French.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
          ],
        },
        { role: 'assistant', content: 'Un chat.' },
        { role: 'user', content: 'Sure?' },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          strict: true,
        },
      },
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      safety_identifier: 'user-42',
      prompt_cache_key: 'cache-1',
    });
  });
});

describe('finish reasons', () => {
  test('length ends the response incomplete with max_output_tokens', async () => {
    const { events, violations } = await stream(server, { model: 'openai-length', input: 'x', max_output_tokens: 16 });
    expect(violations).toEqual([]);
    const final = finalOf(events);
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output).toMatchObject([{ type: 'message', status: 'incomplete', content: [{ text: 'Once upon a' }] }]);
  });

  test('content_filter ends the response incomplete with content_filter', async () => {
    const { events, violations } = await stream(server, { model: 'openai-content-filter', input: 'x' });
    expect(violations).toEqual([]);
    expect(finalOf(events)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } });
  });
});

describe('upstream failures', () => {
  test('429 stays too_many_requests with its Retry-After (the openai SDK sees a RateLimitError)', async () => {
    const error = await client.responses.create({ model: 'status-429', input: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rate = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rate.status).toBe(429);
    expect(rate.headers.get('retry-after')).toBe('1');
    expect(rate.error).toMatchObject({ type: 'too_many_requests', code: 'rate_limited' });
    const streamed = await post(server, '/v1/responses', { model: 'status-429', input: 'x', stream: true });
    expect(streamed.status).toBe(429);
    expect(streamed.headers.get('retry-after')).toBe('1');
  });

  test('the openai SDK retries a 429 after the Retry-After it was given', async () => {
    const retrying = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 1 });
    const started = Date.now();
    await retrying.responses.create({ model: 'status-429', input: 'x' }).catch(() => undefined);
    // Two upstream calls, a second apart: the SDK waited as the upstream's Retry-After said.
    expect(upstream.received.filter((r) => r.body.model === 'status-429')).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  test('401 from the upstream is the gateway’s server_error and never shows the upstream key', async () => {
    for (const streaming of [false, true]) {
      const response = await post(server, '/v1/responses', { model: 'status-401', input: 'x', stream: streaming });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toMatchObject({
        error: { type: 'server_error', code: 'upstream_authentication_failed' },
      });
      expect(text).not.toContain(UPSTREAM_KEY);
    }
  });

  test('400 from the upstream is invalid_request with its param; the key echoed in its message is redacted', async () => {
    const response = await post(server, '/v1/responses', { model: 'status-400', input: 'x', temperature: 1.5 });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({
      error: { type: 'invalid_request', code: 'upstream_rejected_request', param: 'temperature' },
    });
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).toContain('[redacted]');
  });

  test('500 from the upstream is a model_error', async () => {
    const response = await post(server, '/v1/responses', { model: 'status-500', input: 'x' });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { type: 'model_error', code: 'upstream_error' } });
  });

  test.each([
    ['cut', 'upstream_stream_cut'],
    ['malformed', 'upstream_invalid_chunk'],
    ['openai-error-midstream', 'upstream_error'],
  ])('a %s stream ends the response failed with an error event, after the text so far', async (model, code) => {
    const { events, violations, sawDone } = await stream(server, { model, input: 'x' });
    expect(violations).toEqual([]);
    expect(sawDone).toBe(true);
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    expect(events.at(-2)).toMatchObject({ type: 'error', error: { type: 'model_error', code } });
    expect(events.at(-1)?.type).toBe('response.failed');
    expect(JSON.stringify(events)).not.toContain(UPSTREAM_KEY);
  });

  test('a slow upstream within the timeout streams; one that never answers times out as server_error', async () => {
    upstream.delayMs = 150;
    const slow = await stream(server, { model: 'openai-text', input: 'x' });
    expect(finalOf(slow.events).status).toBe('completed');
    upstream.delayMs = 0;
    const started = Date.now();
    const response = await post(server, '/v1/responses', { model: 'hang', input: 'x' });
    expect(response.status).toBe(504);
    expect(await response.json()).toMatchObject({ error: { type: 'server_error', code: 'upstream_timeout' } });
    // Ten times the upstream's 1 s timeout: the time it answers in idle, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(10_000);
    const record = lastSent();
    for (let attempt = 0; attempt < 100 && !record.aborted; attempt++) await new Promise((r) => setTimeout(r, 20));
    expect(record.aborted).toBe(true);
  });

  test('an unreachable upstream is server_error upstream_unavailable', async () => {
    const own = await startTestServer({
      providers: [
        new ChatCompletionsProvider({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 2_000, fetch: nodeFetch }),
      ],
    });
    try {
      const response = await post(own, '/v1/responses', { model: 'anything', input: 'x' });
      expect(await response.json()).toMatchObject({ error: { type: 'server_error', code: 'upstream_unavailable' } });
    } finally {
      await own.close();
    }
  });
});

describe('streaming is incremental and cancellable', () => {
  test('the first delta reaches the client while the upstream still holds its stream open', async () => {
    const response = await post(server, '/v1/responses', { model: 'held', input: 'x', stream: true });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('response.output_text.delta')) text += (await reader.read()).value;
    expect(text).toContain('"delta":"First"');
    expect(lastSent().aborted).toBe(false);
    expect(text).not.toContain('second');
    upstream.release();
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += next.value;
    expect(text).toContain('"delta":" and second."');
    expect(text).toContain('event: response.completed');
  });

  test('a client that goes away aborts the upstream request', async () => {
    const response = await post(server, '/v1/responses', { model: 'held', input: 'x', stream: true });
    const reader = response.body!.getReader();
    await reader.read();
    const record = lastSent();
    expect(record.aborted).toBe(false);
    await reader.cancel();
    for (let attempt = 0; attempt < 100 && !record.aborted; attempt++) await new Promise((r) => setTimeout(r, 20));
    expect(record.aborted).toBe(true);
    upstream.release();
  });

  test('a JSON answer: a client that goes away before the upstream answers aborts the upstream request', async () => {
    // Timeouts far past the test's own: only the client's leaving can abort this call.
    const provider = new ChatCompletionsProvider({ baseUrl: upstream.baseUrl, fetch: nodeFetch, timeoutMs: 60_000 });
    const client = new AbortController();
    const parts = provider.generate(modelRequest({ model: 'hang', signal: client.signal }));
    const first = parts.next();
    for (let attempt = 0; attempt < 100 && upstream.received.length === 0; attempt++)
      await new Promise((r) => setTimeout(r, 20));
    const record = lastSent();
    expect(record.body).toMatchObject({ model: 'hang' });
    expect(record.aborted).toBe(false);
    client.abort();
    await expect(first).rejects.toMatchObject({ type: 'server_error' });
    for (let attempt = 0; attempt < 100 && !record.aborted; attempt++) await new Promise((r) => setTimeout(r, 20));
    expect(record.aborted).toBe(true);
    // The failed exchange is over: reading on ends at once, and so does letting it go.
    expect(await parts.next()).toEqual({ done: true, value: undefined });
    expect(await parts.return!()).toEqual({ done: true, value: undefined });
  });

  test.each([
    ['nodeFetch', nodeFetch],
    ['the global fetch', undefined],
  ])(
    'called with a plain request that has only a signal (a provider wrapping it), aborting the signal aborts the upstream (%s)',
    async (_, fetch) => {
      const provider = new ChatCompletionsProvider({ baseUrl: upstream.baseUrl, fetch });
      const client = new AbortController();
      const request = modelRequest({
        model: 'held',
        items: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'user',
            content: [{ type: 'input_text', text: 'x' }],
          },
        ],
        stream: true,
        signal: client.signal,
      });
      const parts = provider.generate(request);
      const first = await parts.next();
      expect(first.value).toMatchObject({ type: 'text-start' });
      const record = lastSent();
      expect(record.aborted).toBe(false);
      const rest = (async () => {
        while (!(await parts.next()).done);
      })();
      client.abort();
      await rest;
      for (let attempt = 0; attempt < 100 && !record.aborted; attempt++) await new Promise((r) => setTimeout(r, 20));
      expect(record.aborted).toBe(true);
      upstream.release();
    },
  );
});

describe('WebSocket', () => {
  test('a response.create turn over WebSocket streams the upstream answer', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const events: Array<{ type: string; delta?: string }> = [];
    const done = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        const event = JSON.parse(data.toString()) as { type: string };
        events.push(event);
        if (event.type === 'response.completed' || event.type === 'response.failed') resolve();
      }),
    );
    socket.send(JSON.stringify({ type: 'response.create', model: 'vllm-reasoning', input: 'Which is larger?' }));
    await done;
    socket.close();
    expect(
      events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta)
        .join(''),
    ).toBe('9.8 is larger.');
    expect(lastSent().body.stream).toBe(true);
  });
});
