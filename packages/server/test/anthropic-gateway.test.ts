// The gateway in front of the replay upstream answering as Anthropic's Messages API (recordings
// claude-*). Each test checks what the client sees (the openai package, the AI SDK, raw SSE through the
// stream checker, WebSocket) and what the upstream received from the gateway.
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { AnthropicMessagesProvider } from '../src/models/anthropic-messages/index.js';
import { gatewayProviders } from '../src/node/gateway.js';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';
import { socketTurn, startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';

const UPSTREAM_KEY = 'sk-ant-upstream-secret-77c1';
const RECORDINGS = new URL('../src/testing/recordings/', import.meta.url);

/** The signature a recording's signature_delta carries: what must come back, byte for byte. */
const recordedSignature = (file: string) =>
  readFileSync(new URL(file, RECORDINGS), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"signature_delta"'))
    .map((line) => (JSON.parse(line.slice(6)) as { delta: { signature: string } }).delta.signature)
    .join('');

let upstream: ReplayUpstream;
let providers: ReturnType<typeof gatewayProviders>;
let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  providers = gatewayProviders({
    env: {
      OPENRESPONSES_ANTHROPIC_API_KEY: UPSTREAM_KEY,
      OPENRESPONSES_ANTHROPIC_URL: upstream.baseUrl.replace(/\/v1$/, ''),
    },
  });
  server = await startTestServer({ providers, chatCompletionsEndpoint: true });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.received.length = 0;
});

const lastSent = () => upstream.received.at(-1)!;
const messagesSent = () => upstream.received.filter((r) => r.path === '/v1/messages');
const finalOf = (events: Array<{ type: string }>) =>
  (events.at(-1) as unknown as { response: Record<string, unknown> }).response;
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  strict: false,
};

describe('registration', () => {
  test('OPENRESPONSES_ANTHROPIC_API_KEY routes claude-* names, unchanged, to the family; others stay unrouted', () => {
    const providers = gatewayProviders({ env: { OPENRESPONSES_ANTHROPIC_API_KEY: 'k' } });
    const anthropic = providers.find((p) => p instanceof AnthropicMessagesProvider) as AnthropicMessagesProvider;
    expect(anthropic.supports('claude-opus-4-6')).toBe(true);
    expect(anthropic.upstreamModel('claude-opus-4-6')).toBe('claude-opus-4-6');
    expect(anthropic.supports('gpt-4o')).toBe(false);
    expect(providers.some((p) => p.supports('gpt-4o'))).toBe(false);
    expect(gatewayProviders({ env: {} }).some((p) => p instanceof AnthropicMessagesProvider)).toBe(false);
    expect(() =>
      gatewayProviders({ env: { OPENRESPONSES_ANTHROPIC_API_KEY: 'k', OPENRESPONSES_ANTHROPIC_URL: 'ftp://x' } }),
    ).toThrow('OPENRESPONSES_ANTHROPIC_URL');
  });

  test('GET /v1/models lists the upstream’s models, asked once and cached', async () => {
    const list = async () =>
      (await (await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as {
        data: Array<{ id: string }>;
      };
    const ids = (await list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['claude-sonnet-4-5-20250929', 'claude-opus-4-6', 'claude-haiku-4-5']));
    await list();
    const asked = upstream.received.filter((r) => r.path.startsWith('/v1/models'));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.headers['x-api-key']).toBe(UPSTREAM_KEY);
  });
});

describe('text', () => {
  test('a stream reaches the openai SDK as deltas; usage counts cache reads and writes; the request is mapped', async () => {
    const events: Array<{ type: string; delta?: string }> = [];
    const response = await client.responses.create({
      model: 'claude-text',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: 'Say hello' },
      ],
      temperature: 0.3,
      stream: true,
    });
    for await (const event of response) events.push(event);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual([
      'Hello',
      ' from',
      ' Claude.',
    ]);
    const final = finalOf(events);
    expect(final.status).toBe('completed');
    // 21 uncached + 8 read from the cache + 4 written to it.
    expect(final.usage).toEqual({
      input_tokens: 33,
      output_tokens: 6,
      total_tokens: 39,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    const sent = lastSent();
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(UPSTREAM_KEY);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'claude-text',
      max_tokens: 8192,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
      stream: true,
      temperature: 0.3,
    });
  });

  test('a JSON turn asks for a whole message', async () => {
    const response = await client.responses.create({ model: 'claude-text', input: 'Say hello', max_output_tokens: 64 });
    expect(response.output_text).toBe('Hello from Claude.');
    expect(lastSent().body).toMatchObject({ max_tokens: 64 });
    expect(lastSent().body.stream).toBeUndefined();
  });

  test('the AI SDK streams the text through the gateway', async () => {
    const provider = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY });
    const result = streamText({ model: provider.responses('claude-text'), prompt: 'Say hello', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Hello from Claude.');
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBe(33);
  });

  test('max_tokens ends the response incomplete; refusal becomes a refusal part', async () => {
    const cut = await stream(server, { model: 'claude-max-tokens', input: 'Tell a story' });
    expect(cut.violations).toEqual([]);
    expect(finalOf(cut.events)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    const refused = await stream(server, { model: 'claude-refusal', input: 'x' });
    expect(refused.violations).toEqual([]);
    const output = finalOf(refused.events).output as Array<{ content: Array<{ type: string }> }>;
    expect(output.flatMap((item) => item.content.map((part) => part.type))).toEqual(['output_text', 'refusal']);
  });

  test('the legacy /v1/chat/completions endpoint works in front of the family', async () => {
    const completion = await client.chat.completions.create({
      model: 'claude-text',
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from Claude.');
    expect(lastSent().path).toBe('/v1/messages');
  });
});

describe('tools', () => {
  test('a tool call keeps Anthropic’s id as call_id; tool_choice and parallel_tool_calls are mapped', async () => {
    const response = await client.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Weather in Paris?',
      tools: [weather],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(response.output).toMatchObject([
      // A JSON turn: the whole message's input object, as JSON.
      {
        type: 'function_call',
        name: 'get_weather',
        call_id: 'toolu_01WeatherCall0000001',
        arguments: '{"location":"Paris"}',
      },
    ]);
    expect(lastSent().body).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather of a city', input_schema: weather.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
  });

  test('a tool without input streams {} as its arguments; a named tool_choice becomes type tool', async () => {
    const { events, violations } = await stream(server, {
      model: 'claude-sonnet-4-5',
      input: 'Time?',
      tools: [{ type: 'function', name: 'get_time', parameters: null }],
      tool_choice: { type: 'function', name: 'get_time' },
    });
    expect(violations).toEqual([]);
    expect(finalOf(events).output).toMatchObject([{ type: 'function_call', name: 'get_time', arguments: '{}' }]);
    expect(lastSent().body).toMatchObject({
      tools: [{ name: 'get_time', input_schema: { type: 'object', properties: {} } }],
      tool_choice: { type: 'tool', name: 'get_time' },
    });
  });

  test('parallel tool calls arrive one after the other; the answer goes back as tool_result blocks first', async () => {
    const first = await client.responses.create({
      model: 'claude-parallel-tools',
      input: 'Paris and Tokyo?',
      tools: [weather],
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.map((c) => [c.call_id, c.arguments])).toEqual([
      ['toolu_01Paris000000000000000', '{"location":"Paris"}'],
      ['toolu_01Tokyo000000000000000', '{"location":"Tokyo"}'],
    ]);
    await client.responses.create({
      model: 'claude-sonnet-4-5',
      previous_response_id: first.id,
      tools: [weather],
      input: [
        { type: 'function_call_output', call_id: calls[0]!.call_id, output: '18C' },
        { type: 'function_call_output', call_id: calls[1]!.call_id, output: '25C' },
        { type: 'message', role: 'user', content: 'Compare them.' },
      ],
    });
    expect(lastSent().body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both cities.' },
          { type: 'tool_use', id: 'toolu_01Paris000000000000000', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'toolu_01Tokyo000000000000000', name: 'get_weather', input: { location: 'Tokyo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01Paris000000000000000', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_01Tokyo000000000000000', content: '25C' },
          { type: 'text', text: 'Compare them.' },
        ],
      },
    ]);
  });
});

describe('reasoning round trip', () => {
  const signature = recordedSignature('claude-thinking-tool-get_weather.sse');
  const thinking = "I need the weather in Paris. I'll call get_weather.";
  /** What a continuation after the tool call must send: the thinking block first in the assistant turn, signature intact. */
  const expectThinkingSentBack = () => {
    const messages = lastSent().body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking, signature },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { location: 'Paris' } },
      ],
    });
    expect(messages[2]!.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
      content: '18C and sunny',
    });
  };

  test('over previous_response_id (SSE): the stored reasoning item carries sealed encrypted_content', async () => {
    const first = await stream(server, {
      model: 'claude-sonnet-4-5',
      input: 'Weather in Paris?',
      tools: [weather],
      reasoning: { effort: 'medium' },
    });
    expect(first.violations).toEqual([]);
    expect(
      first.events.filter((e) => e.type === 'response.reasoning.delta').map((e) => (e as { delta: string }).delta),
    ).toEqual(['I need the weather in Paris.', " I'll call get_weather."]);
    // A budget-thinking generation: the effort became a token budget inside max_tokens.
    expect(lastSent().body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 8192 }, max_tokens: 16_384 });
    const response = finalOf(first.events) as { id: string; output: Array<Record<string, unknown>> };
    const reasoning = response.output[0]!;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.encrypted_content).toMatch(/^or3\./);
    // Sealed: the signature is not readable in it.
    expect(String(reasoning.encrypted_content)).not.toContain(signature.slice(0, 20));
    const call = response.output.find((item) => item.type === 'function_call')!;
    const second = await stream(server, {
      model: 'claude-sonnet-4-5',
      previous_response_id: response.id,
      tools: [weather],
      reasoning: { effort: 'medium' },
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C and sunny' }],
    });
    expect(second.violations).toEqual([]);
    expectThinkingSentBack();
  });

  test("another tenant's reasoning item is a 400 naming it, and the upstream receives nothing (owner-bound sealing)", async () => {
    const TENANT_B = 'tenant-b-key-5d1e0c';
    const shared = await startTestServer({ providers, apiKeys: [API_KEY, TENANT_B] });
    try {
      const as = (key: string) => new OpenAI({ baseURL: `${shared.url}/v1`, apiKey: key, maxRetries: 0 });
      const first = await as(API_KEY).responses.create({
        model: 'claude-sonnet-4-5',
        input: 'Weather in Paris?',
        tools: [weather],
        reasoning: { effort: 'medium' },
        store: false,
        include: ['reasoning.encrypted_content'],
      });
      const reasoning = first.output.find((item) => item.type === 'reasoning')!;
      const replay = (key: string) =>
        post(
          shared,
          '/v1/responses',
          {
            model: 'claude-sonnet-4-5',
            store: false,
            reasoning: { effort: 'medium' },
            input: [{ role: 'user', content: 'Go on.' }, reasoning],
          },
          { authorization: `Bearer ${key}` },
        );
      upstream.received.length = 0;
      const refused = await replay(TENANT_B);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: {
          type: 'invalid_request',
          code: 'invalid_encrypted_content',
          param: 'input[1].encrypted_content',
          message: expect.stringMatching(/another tenant/),
        },
      });
      expect(messagesSent()).toHaveLength(0);
      // The owner's own replay still opens and reaches the upstream with the thinking.
      expect((await replay(API_KEY)).status).toBe(200);
      expect(messagesSent()).toHaveLength(1);
    } finally {
      await shared.close();
    }
  });

  test('over store: false replay with the openai SDK (include reasoning.encrypted_content)', async () => {
    const first = await client.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Weather in Paris?',
      tools: [weather],
      reasoning: { effort: 'medium' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const call = first.output.find((item) => item.type === 'function_call')!;
    await client.responses.create({
      model: 'claude-sonnet-4-5',
      store: false,
      tools: [weather],
      reasoning: { effort: 'medium' },
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: '18C and sunny' },
      ],
    });
    expectThinkingSentBack();
  });

  test('over WebSocket with previous_response_id', async () => {
    const first = (await socketTurn(server.url, API_KEY, {
      model: 'claude-sonnet-4-5',
      input: 'Weather in Paris?',
      tools: [weather],
      reasoning: { effort: 'medium' },
    })) as { type: string; response: { id: string; output: Array<{ type: string; call_id?: string }> } };
    expect(first.type).toBe('response.completed');
    const call = first.response.output.find((item) => item.type === 'function_call')!;
    const second = (await socketTurn(server.url, API_KEY, {
      model: 'claude-sonnet-4-5',
      previous_response_id: first.response.id,
      tools: [weather],
      reasoning: { effort: 'medium' },
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C and sunny' }],
    })) as { type: string };
    expect(second.type).toBe('response.completed');
    expectThinkingSentBack();
  });

  test('without store or include, the reasoning item has no encrypted_content (nothing to send back)', async () => {
    const response = await client.responses.create({
      model: 'claude-sonnet-4-5',
      input: 'Hi',
      reasoning: { effort: 'low' },
      store: false,
    });
    expect(response.output[0]).toMatchObject({ type: 'reasoning' });
    expect((response.output[0] as { encrypted_content?: unknown }).encrypted_content ?? null).toBeNull();
  });

  test('a reasoning item with encrypted_content null (seed 002) is accepted and not sent upstream', async () => {
    await client.responses.create({
      model: 'claude-sonnet-4-5',
      store: false,
      input: [
        { role: 'user', content: 'What tools do you have now?' },
        { id: 'rs_0fdd7434', type: 'reasoning', summary: [], encrypted_content: null } as never,
        { role: 'assistant', content: 'I have get_weather.' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(lastSent().body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What tools do you have now?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'I have get_weather.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  test('encrypted_content that is not this server’s is a 400 naming it; nothing reaches the upstream', async () => {
    const response = await post(server, '/v1/responses', {
      model: 'claude-sonnet-4-5',
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'reasoning', summary: [], encrypted_content: `or2.k1.${'A'.repeat(60)}` },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request', code: 'invalid_encrypted_content', param: 'input[1].encrypted_content' },
    });
    expect(messagesSent()).toHaveLength(0);
  });

  test.each([
    ['a bad %-escape', { type: 'input_file', file_data: 'data:text/plain,100%zz' }, 'file_data', /%-escape/],
    [
      'bad base64',
      { type: 'input_file', file_data: 'data:application/pdf;base64,JVB*ERi0=', filename: 'a.pdf' },
      'file_data',
      /base64/,
    ],
    [
      'a bad base64 image',
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo$' },
      'image_url',
      /base64/,
    ],
  ])(
    'a malformed data URL (%s) is a 400 invalid_value naming it; nothing reaches the upstream',
    async (_, part, field, reason) => {
      const response = await post(server, '/v1/responses', {
        model: 'claude-sonnet-4-5',
        input: [{ role: 'user', content: [{ type: 'input_text', text: 'Read this' }, part] }],
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: {
          type: 'invalid_request',
          code: 'invalid_value',
          param: `input[0].content[1].${field}`,
          message: expect.stringMatching(reason),
        },
      });
      expect(messagesSent()).toHaveLength(0);
    },
  );

  test('redacted thinking round-trips as its data', async () => {
    const first = await client.responses.create({
      model: 'claude-redacted-thinking',
      input: 'Hi',
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    await client.responses.create({
      model: 'claude-text',
      store: false,
      input: [
        { role: 'user', content: 'Hi' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { role: 'user', content: 'Again' },
      ],
    });
    const data = JSON.parse(
      readFileSync(new URL('claude-redacted-thinking.sse', RECORDINGS), 'utf8').split('\n')[4]!.slice(6),
    ).content_block.data as string;
    expect((lastSent().body.messages as Array<{ content: unknown[] }>)[1]!.content[0]).toEqual({
      type: 'redacted_thinking',
      data,
    });
  });
});

describe('upstream failures', () => {
  test.each([
    ['claude-status-400', 400, 'invalid_request', 'upstream_rejected_request'],
    ['claude-status-401', 500, 'server_error', 'upstream_authentication_failed'],
    ['claude-status-403', 500, 'server_error', 'upstream_authentication_failed'],
    ['claude-status-404', 400, 'invalid_request', 'model_not_found'],
    ['claude-status-413', 400, 'invalid_request', 'request_too_large'],
    ['claude-status-429', 429, 'too_many_requests', 'rate_limited'],
    ['claude-status-500', 500, 'model_error', 'upstream_error'],
    ['claude-status-529', 503, 'server_error', 'upstream_overloaded'],
  ])('%s answers %i %s %s, without the key', async (model, status, type, code) => {
    const response = await post(server, '/v1/responses', { model, input: 'x' });
    expect(response.status).toBe(status);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { type, code } });
    expect(text).not.toContain(UPSTREAM_KEY);
    if (status === 429) expect(response.headers.get('retry-after')).toBe('7');
  });

  test('a mid-stream overloaded error and a cut stream fail the response with an error event', async () => {
    for (const [model, code] of [
      ['claude-error-midstream', 'upstream_overloaded'],
      ['claude-cut', 'upstream_stream_cut'],
    ] as const) {
      const { events, violations } = await stream(server, { model, input: 'x' });
      expect(violations).toEqual([]);
      expect(events.find((e) => e.type === 'error')).toMatchObject({ error: { code } });
      expect(events.at(-1)!.type).toBe('response.failed');
    }
  });
});
