// The gateway in front of the replay upstream answering as the Gemini API (recordings gemini-*). Each test
// checks what the client sees (the openai package, raw SSE through the stream checker) and what the upstream
// received from the gateway.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { GeminiProvider } from '../src/models/gemini/index.js';
import { gatewayProviders } from '../src/node/gateway.js';
import type { RunningServer } from '../src/node/index.js';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { GEMINI_MODEL_PAGES } from '../src/testing/replay-upstream.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';

const UPSTREAM_KEY = 'AIzaSyGeminiUpstreamSecret0123456789';
const RECORDINGS = new URL('../src/testing/recordings/', import.meta.url);

/** The signatures a recording carries, in order: what must come back, byte for byte. */
const recordedSignatures = (file: string) =>
  [...readFileSync(new URL(file, RECORDINGS), 'utf8').matchAll(/"thoughtSignature":"([^"]+)"/g)].map((m) => m[1]!);

let upstream: ReplayUpstream;
let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  const providers = gatewayProviders({
    env: {
      OPENRESPONSES_GEMINI_API_KEY: UPSTREAM_KEY,
      OPENRESPONSES_GEMINI_URL: upstream.baseUrl.replace(/\/v1$/, ''),
    },
  });
  server = await startTestServer({ providers });
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
const generations = () => upstream.received.filter((r) => r.path.includes(':'));
const finalOf = (events: Array<{ type: string }>) =>
  (events.at(-1) as unknown as { response: Record<string, unknown> }).response;
type Contents = Array<{ role: string; parts: Array<Record<string, unknown>> }>;
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['C', 'F', null] } },
    required: ['location'],
    additionalProperties: false,
  },
  strict: false,
};

describe('registration', () => {
  test('OPENRESPONSES_GEMINI_API_KEY routes gemini-* names, unchanged, to the family; a bad URL fails at start', () => {
    const providers = gatewayProviders({ env: { OPENRESPONSES_GEMINI_API_KEY: 'k' } });
    const gemini = providers.find((p) => p instanceof GeminiProvider) as GeminiProvider;
    expect(gemini.supports('gemini-2.5-flash')).toBe(true);
    expect(gemini.upstreamModel('gemini-2.5-flash')).toBe('gemini-2.5-flash');
    expect(gemini.supports('gpt-4o')).toBe(false);
    expect(gatewayProviders({ env: {} }).some((p) => p instanceof GeminiProvider)).toBe(false);
    expect(() =>
      gatewayProviders({ env: { OPENRESPONSES_GEMINI_API_KEY: 'k', OPENRESPONSES_GEMINI_URL: 'ftp://x' } }),
    ).toThrow('OPENRESPONSES_GEMINI_URL');
  });

  test('GET /v1/models follows every page of the upstream’s list, keeps the models that generate, and caches', async () => {
    const list = async () =>
      (await (await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as {
        data: Array<{ id: string }>;
      };
    const ids = (await list()).data.map((m) => m.id);
    const generating = GEMINI_MODEL_PAGES.flat().filter((id) => id.startsWith('gemini'));
    expect(ids).toEqual(expect.arrayContaining(generating));
    expect(ids).not.toContain('text-embedding-004');
    await list();
    const asked = upstream.received.filter((r) => r.path.startsWith('/v1beta/models?'));
    expect(asked.map((r) => new URL(r.path, 'http://x').searchParams.get('pageToken'))).toEqual([null, 'page-2']);
    expect(asked[0]!.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
  });
});

describe('text', () => {
  test('a stream reaches the openai SDK as deltas; usage is mapped; the request is Gemini’s', async () => {
    const events: Array<{ type: string; delta?: string }> = [];
    const response = await client.responses.create({
      model: 'gemini-text',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: 'Say hello' },
      ],
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 100,
      stream: true,
    });
    for await (const event of response) events.push(event);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual([
      'Hello',
      ' from',
      ' Gemini.',
    ]);
    const final = finalOf(events);
    expect(final.status).toBe('completed');
    expect(final.usage).toEqual({
      input_tokens: 21,
      output_tokens: 4,
      total_tokens: 25,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
    const sent = lastSent();
    expect(sent.path).toBe('/v1beta/models/gemini-text:streamGenerateContent?alt=sse');
    expect(sent.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in English.' }] },
      generationConfig: { maxOutputTokens: 100, temperature: 0.3, topP: 0.9 },
    });
  });

  test('a JSON turn asks for a whole answer (generateContent)', async () => {
    const response = await client.responses.create({ model: 'gemini-text', input: 'Say hello' });
    expect(response.output_text).toBe('Hello from Gemini.');
    expect(lastSent().path).toBe('/v1beta/models/gemini-text:generateContent');
  });

  test('text.format json_schema becomes responseMimeType and responseJsonSchema, the schema as sent', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    await client.responses.create({
      model: 'gemini-text',
      input: 'A city',
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
    });
    expect(lastSent().body.generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  test('images and files become inlineData and fileData parts', async () => {
    await client.responses.create({
      model: 'gemini-text',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
            { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
            { type: 'input_file', filename: 'notes.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
          ],
        },
      ],
    });
    expect((lastSent().body.contents as Contents)[0]!.parts).toEqual([
      { text: 'What is this?' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/cat.jpg', mimeType: 'image/jpeg' } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]);
  });
});

describe('ends', () => {
  test.each([
    ['gemini-max-tokens', 'incomplete', { reason: 'max_output_tokens' }],
    ['gemini-safety', 'incomplete', { reason: 'content_filter' }],
    ['gemini-blocked-prompt', 'incomplete', { reason: 'content_filter' }],
  ])('%s ends the response %s (%j) in a valid stream', async (model, status, details) => {
    const { events, violations } = await stream(server, { model, input: 'Go' });
    expect(violations).toEqual([]);
    expect(finalOf(events)).toMatchObject({ status, incomplete_details: details });
  });

  test.each([
    ['gemini-error-midstream', 'upstream_error', /internal error/],
    ['gemini-cut', 'upstream_stream_cut', /incomplete/],
  ])('%s fails the started response with %s', async (model, code, message) => {
    const { events, violations } = await stream(server, { model, input: 'Go' });
    expect(violations).toEqual([]);
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      error: { code, message: expect.stringMatching(message) },
    });
    expect(finalOf(events).status).toBe('failed');
  });
});

describe('errors', () => {
  test('a finish reason that is a failure before any output (MALFORMED_FUNCTION_CALL) is a 500 model_error naming it', async () => {
    const response = await post(server, '/v1/responses', { model: 'gemini-malformed-call', input: 'Go', stream: true });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: {
        type: 'model_error',
        code: 'upstream_error',
        message: expect.stringContaining('MALFORMED_FUNCTION_CALL'),
      },
    });
  });

  test.each([
    ['gemini-status-429', 429, { type: 'too_many_requests', code: 'rate_limited' }, '17'],
    ['gemini-status-503', 503, { type: 'server_error', code: 'upstream_overloaded' }, null],
    [
      'gemini-status-400',
      400,
      { type: 'invalid_request', code: 'upstream_rejected_request', param: 'max_output_tokens' },
      null,
    ],
    ['gemini-status-400-key', 500, { type: 'server_error', code: 'upstream_authentication_failed' }, null],
    ['gemini-status-403', 500, { type: 'server_error', code: 'upstream_authentication_failed' }, null],
    ['gemini-status-404', 400, { type: 'invalid_request', code: 'model_not_found', param: 'model' }, null],
    ['gemini-status-500', 500, { type: 'model_error', code: 'upstream_error' }, null],
  ])('%s is a %i %j, Retry-After %s, never the upstream key', async (model, status, error, retryAfter) => {
    const response = await post(server, '/v1/responses', { model, input: 'Hi', stream: true });
    expect(response.status).toBe(status);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error });
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(response.headers.get('retry-after')).toBe(retryAfter);
  });

  test.each([
    [{ safety_identifier: 'user-1' }, 'safety_identifier'],
    [{ top_logprobs: 3 }, 'top_logprobs'],
    [{ tools: [weather], parallel_tool_calls: false }, 'parallel_tool_calls'],
    [{ text: { verbosity: 'low' } }, 'text.verbosity'],
    [{ include: ['message.output_text.logprobs'] }, 'include[0]'],
    [
      { tools: [{ ...weather, parameters: { type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } } }] },
      'tools[0].parameters',
    ],
  ])('a field Gemini has no form of is a 400 naming it, and nothing goes upstream: %j', async (fields, param) => {
    const response = await post(server, '/v1/responses', { model: 'gemini-text', input: 'Hi', ...fields });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { type: 'invalid_request', param } });
    expect(generations()).toHaveLength(0);
  });
});

describe('tools', () => {
  test('function tools become functionDeclarations in Gemini’s schema dialect; calls get gateway-made ids', async () => {
    const response = await client.responses.create({
      model: 'gemini-2.5-flash',
      input: 'Weather in Paris?',
      tools: [weather],
      tool_choice: 'required',
    });
    const call = response.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"location":"Paris"}' });
    expect((call as { call_id: string }).call_id).toMatch(/^call_/);
    expect(lastSent().body).toMatchObject({
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Weather of a city',
              parameters: {
                type: 'OBJECT',
                properties: {
                  location: { type: 'STRING' },
                  unit: { type: 'STRING', nullable: true, enum: ['C', 'F'] },
                },
                required: ['location'],
              },
            },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    });
  });

  test('parallel results go back in one user turn as functionResponse parts named after the function', async () => {
    const first = await client.responses.create({
      model: 'gemini-parallel-tools',
      input: 'Paris and Tokyo?',
      tools: [weather],
    });
    const calls = first.output.filter((item) => item.type === 'function_call');
    expect(calls.map((c) => c.arguments)).toEqual(['{"location":"Paris"}', '{"location":"Tokyo"}']);
    await client.responses.create({
      model: 'gemini-2.5-flash',
      previous_response_id: first.id,
      tools: [weather],
      input: [
        { type: 'function_call_output', call_id: calls[0]!.call_id, output: '18C' },
        { type: 'function_call_output', call_id: calls[1]!.call_id, output: '25C' },
      ],
    });
    const contents = lastSent().body.contents as Contents;
    expect(contents).toHaveLength(3);
    expect(contents[1]!.role).toBe('model');
    expect(contents[1]!.parts.map((part) => (part.functionCall as { name: string }).name)).toEqual([
      'get_weather',
      'get_weather',
    ]);
    // The first call carried Gemini's signature: it goes back on that part, byte for byte.
    expect(contents[1]!.parts[0]!.thoughtSignature).toBe(recordedSignatures('gemini-parallel-tools.sse')[0]);
    expect(contents[1]!.parts[1]!.thoughtSignature).toBeUndefined();
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: '18C' }, id: calls[0]!.call_id } },
        { functionResponse: { name: 'get_weather', response: { output: '25C' }, id: calls[1]!.call_id } },
      ],
    });
  });
});

describe('reasoning round trip', () => {
  const [signature] = recordedSignatures('gemini-thinking-tool-get_weather.sse');

  test('over store: false with the openai SDK: thoughts are a reasoning summary, the signature comes back on the call', async () => {
    const first = await client.responses.create({
      model: 'gemini-3-pro-preview',
      input: 'Weather in Paris?',
      tools: [weather],
      reasoning: { effort: 'high' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(lastSent().body.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingLevel: 'high' },
    });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary[0]!.text).toContain('I need the get_weather tool');
    expect(reasoning.encrypted_content).toBeTruthy();
    // Sealed: the signature is not readable in it.
    expect(reasoning.encrypted_content).not.toContain(signature!.slice(0, 20));
    expect(first.usage).toMatchObject({ output_tokens: 73, output_tokens_details: { reasoning_tokens: 57 } });
    const call = first.output[1] as OpenAI.Responses.ResponseFunctionToolCall;
    await client.responses.create({
      model: 'gemini-3-pro-preview',
      store: false,
      tools: [weather],
      reasoning: { effort: 'high' },
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: '18C and sunny' },
      ],
    });
    expect(lastSent().body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'get_weather', args: { location: 'Paris' }, id: call.call_id },
            thoughtSignature: signature,
          },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { output: '18C and sunny' }, id: call.call_id } }],
      },
    ]);
  });

  test('over previous_response_id (SSE): a signature on the answer’s last part goes back on that text', async () => {
    const first = await stream(server, { model: 'gemini-3-flash-preview', input: 'Hi', reasoning: { effort: 'low' } });
    expect(first.violations).toEqual([]);
    const response = finalOf(first.events) as { id: string; output: Array<{ type: string }> };
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'reasoning']);
    const second = await stream(server, {
      model: 'gemini-3-flash-preview',
      previous_response_id: response.id,
      reasoning: { effort: 'low' },
      input: 'And again?',
    });
    expect(second.violations).toEqual([]);
    expect((lastSent().body.contents as Contents)[1]).toEqual({
      role: 'model',
      parts: [{ text: 'Hello there!', thoughtSignature: recordedSignatures('gemini-thinking-text.sse')[0] }],
    });
  });

  test('a reasoning item whose sealed state was altered is refused, and nothing goes upstream', async () => {
    const first = await client.responses.create({
      model: 'gemini-3-pro-preview',
      input: 'Weather in Paris?',
      tools: [weather],
      reasoning: { effort: 'high' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
    const sealed = reasoning.encrypted_content!;
    const altered = `${sealed.slice(0, -4)}${sealed.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    upstream.received.length = 0;
    const response = await post(server, '/v1/responses', {
      model: 'gemini-3-pro-preview',
      store: false,
      input: [
        { role: 'user', content: 'Go on.' },
        { ...reasoning, encrypted_content: altered },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'input[1].encrypted_content' } });
    expect(generations()).toHaveLength(0);
  });
});
