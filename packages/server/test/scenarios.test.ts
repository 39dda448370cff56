// Scenario files drive the real server as a scriptable test double: every scripted feature through the
// real `openai` SDK and our client, every stream checked by the events package's checker.
import OpenAI from 'openai';
import { createClient } from '@openresponses/client';
import { createRegistry, defineEvent, defineItem } from '@openresponses/extensions';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ScenarioFileError, type ScenarioFile } from '../src/models/scenario-file.js';
import { ScenarioProvider } from '../src/models/scenarios.js';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer, stream } from './harness.js';

const citation = {
  type: 'url_citation',
  url: 'https://example.com/paris',
  title: 'Paris',
  start_index: 0,
  end_index: 5,
};

const file: ScenarioFile = {
  scenarios: [
    {
      name: 'first round: think, then call get_weather for Paris',
      match: { text: 'weather', toolOutputs: false },
      output: [
        { type: 'reasoning', summary: ['The user wants the weather.'], content: 'Call the tool for each city.' },
        { type: 'function_call', name: 'get_weather', arguments: { city: 'Paris' }, call_id: 'call_paris' },
      ],
    },
    {
      name: 'the first follow-up is rate limited',
      match: { toolOutputs: true },
      times: 1,
      error: { status: 429, code: 'rate_limit_exceeded', message: 'Slow down.', headers: { 'retry-after': '0' } },
    },
    {
      name: 'second round: call get_weather for Lyon',
      match: { toolOutputs: true },
      times: 1,
      output: [{ type: 'function_call', name: 'get_weather', arguments: '{"city":"Lyon"}', call_id: 'call_lyon' }],
    },
    {
      name: 'final answer: two parts, an annotation',
      match: { toolOutputs: true },
      output: [
        {
          type: 'message',
          content: [
            { text: 'Paris is sunny, Lyon rains.', annotations: [citation] },
            { refusal: 'No forecasts beyond today.' },
          ],
        },
      ],
      usage: { input_tokens: 42, output_tokens: 9 },
    },
    {
      name: 'content filter',
      match: { text: '[filtered]' },
      output: [{ type: 'message', text: 'I started to' }],
      end: { incomplete: 'content_filter' },
    },
    {
      name: 'fails mid-stream',
      match: { text: '[break]' },
      output: [{ type: 'message', text: 'one two three four five' }],
      end: { failed: { code: 'upstream_lost', message: 'Lost the upstream.', afterDeltas: 3 } },
    },
    {
      name: 'paced chunks',
      match: { text: '[chunks]' },
      output: [{ type: 'message', text: 'abcdefghij' }],
      pacing: { delayMs: 5, chunkSize: 4 },
    },
    {
      name: 'server error',
      match: { text: '[500]' },
      error: { status: 500, message: 'Scripted outage.' },
    },
    {
      name: 'vendor event and item',
      match: { text: '[vendor]' },
      output: [
        { type: 'event', event: { type: 'acme:progress', percent: 50 } },
        { type: 'acme:search_call', status: 'completed', query: 'weather' },
        { type: 'message', text: 'Done.' },
      ],
    },
  ],
};

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

// A fresh provider per test: `times` counts are per provider.
let server: RunningServer;
beforeEach(async () => {
  server = await startTestServer({ providers: [new ScenarioProvider(file)] });
});
afterEach(() => server?.close());

const openai = (maxRetries = 0) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries });

describe('scenario files', () => {
  test('a two-round tool conversation with a 429 in the middle, through the openai SDK', async () => {
    const sdk = openai();
    const first = await sdk.responses.create({
      model: 'openresponses-scenario',
      input: 'What is the weather in Paris and Lyon?',
      tools: [weatherTool],
    });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    const call = first.output[1] as { call_id: string; name: string; arguments: string };
    expect(call).toMatchObject({ call_id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' });

    const followUp = {
      model: 'openresponses-scenario',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output' as const, call_id: 'call_paris', output: 'sunny' }],
      tools: [weatherTool],
    };
    const limited = await sdk.responses.create(followUp).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).headers.get('retry-after')).toBe('0');
    expect((limited as InstanceType<typeof OpenAI.RateLimitError>).error).toMatchObject({
      type: 'too_many_requests',
      code: 'rate_limit_exceeded',
      message: 'Slow down.',
    });

    const second = await sdk.responses.create(followUp);
    expect(second.output).toMatchObject([
      { type: 'function_call', call_id: 'call_lyon', arguments: '{"city":"Lyon"}' },
    ]);

    const final = await sdk.responses.create({
      ...followUp,
      previous_response_id: second.id,
      input: [{ type: 'function_call_output', call_id: 'call_lyon', output: 'rain' }],
    });
    expect(final.status).toBe('completed');
    expect(final.usage).toMatchObject({ input_tokens: 42, output_tokens: 9, total_tokens: 51 });
    expect(final.output).toMatchObject([
      {
        type: 'message',
        content: [
          { type: 'output_text', text: 'Paris is sunny, Lyon rains.', annotations: [citation] },
          { type: 'refusal', refusal: 'No forecasts beyond today.' },
        ],
      },
    ]);
  });

  test('the openai SDK retries the scripted 429 by itself', async () => {
    const retrying = new ScenarioProvider({
      scenarios: [
        { name: 'limited once', times: 1, error: { status: 429, message: 'later', headers: { 'retry-after': '0' } } },
        { name: 'then fine', output: [{ type: 'message', text: 'made it' }] },
      ],
    });
    const own = await startTestServer({ providers: [retrying] });
    try {
      const sdkOwn = new OpenAI({ baseURL: `${own.url}/v1`, apiKey: API_KEY, maxRetries: 2 });
      const response = await sdkOwn.responses.create({ model: 'openresponses-scenario', input: 'hi' });
      expect(response.output_text).toBe('made it');
    } finally {
      await own.close();
    }
  });

  test('streamed: several parts and an annotation pass the stream checker', async () => {
    const client = createClient({ baseURL: `${server.url}/v1`, apiKey: API_KEY, validate: 'exact', maxRetries: 0 });
    const first = await client.responses.create({
      model: 'openresponses-scenario',
      input: 'weather please',
      tools: [weatherTool],
    });
    await expect(
      client.responses.create({
        model: 'openresponses-scenario',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: 'call_paris', output: 'sunny' }],
        tools: [weatherTool],
      }),
    ).rejects.toMatchObject({ status: 429 });
    const second = await client.responses.create({
      model: 'openresponses-scenario',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_paris', output: 'sunny' }],
      tools: [weatherTool],
    });
    const result = await stream(server, {
      model: 'openresponses-scenario',
      previous_response_id: second.id,
      input: [{ type: 'function_call_output', call_id: 'call_lyon', output: 'rain' }],
    });
    expect(result.violations).toEqual([]);
    const types = result.events.map((e) => e.type);
    expect(types).toContain('response.output_text.annotation.added');
    expect(types.filter((t) => t === 'response.content_part.added')).toHaveLength(2);
    expect(types).toContain('response.refusal.done');
    expect(types.at(-1)).toBe('response.completed');
  });

  test('content_filter ends the response incomplete', async () => {
    const result = await stream(server, { model: 'openresponses-scenario', input: 'say it [filtered]' });
    expect(result.violations).toEqual([]);
    const last = result.events.at(-1) as { type: string; response: { status: string; incomplete_details: unknown } };
    expect(last.type).toBe('response.incomplete');
    expect(last.response.incomplete_details).toEqual({ reason: 'content_filter' });
  });

  test('a failure after the third delta: an error event, then response.failed', async () => {
    const result = await stream(server, { model: 'openresponses-scenario', input: '[break]' });
    expect(result.violations).toEqual([]);
    const deltas = result.events.filter((e) => e.type === 'response.output_text.delta') as Array<{ delta: string }>;
    expect(deltas.map((d) => d.delta)).toEqual(['one', ' two', ' three']);
    const types = result.events.map((e) => e.type);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(result.events.at(-1)).toMatchObject({
      response: { error: { code: 'upstream_lost', message: 'Lost the upstream.' } },
    });
  });

  test('chunk sizes and pacing shape the deltas', async () => {
    const result = await stream(server, { model: 'openresponses-scenario', input: '[chunks]' });
    expect(result.violations).toEqual([]);
    const deltas = result.events.filter((e) => e.type === 'response.output_text.delta') as Array<{ delta: string }>;
    expect(deltas.map((d) => d.delta)).toEqual(['abcd', 'efgh', 'ij']);
  });

  test('vendor events and items stream in order (declared in the server registry)', async () => {
    const registry = createRegistry({
      items: [defineItem('acme:search_call', { query: z.string() })],
      events: [defineEvent('acme:progress', { percent: z.number() })],
    });
    const own = await startTestServer({ providers: [new ScenarioProvider(file)], registry });
    const result = await stream(own, { model: 'openresponses-scenario', input: '[vendor]' }).finally(() => own.close());
    const checker = registry.createStreamChecker();
    const violations = [
      ...result.events.flatMap((event) => checker.push(event)),
      ...checker.end({ sawDone: result.sawDone }),
    ];
    expect(violations).toEqual([]);
    expect(result.events.find((e) => e.type === 'acme:progress')).toMatchObject({ percent: 50 });
    const added = result.events.filter((e) => e.type === 'response.output_item.added') as Array<{
      item: { type: string };
    }>;
    expect(added.map((e) => e.item.type)).toEqual(['acme:search_call', 'message']);
    expect(result.events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output: [{ type: 'acme:search_call', query: 'weather' }, { type: 'message' }] },
    });
  });

  test('a scripted 500 is a spec-shaped server_error', async () => {
    const response = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ model: 'openresponses-scenario', input: '[500]' }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { type: 'server_error', code: 'scripted_error', param: null, message: 'Scripted outage.' },
    });
  });

  test('a request no scenario matches is a 400 naming the scenarios', async () => {
    const only = await startTestServer({
      providers: [
        new ScenarioProvider({
          scenarios: [{ name: 'only hello', match: { text: 'hello' }, output: [{ type: 'message', text: 'hi' }] }],
        }),
      ],
    });
    try {
      const error = await new OpenAI({ baseURL: `${only.url}/v1`, apiKey: API_KEY, maxRetries: 0 }).responses
        .create({ model: 'openresponses-scenario', input: 'goodbye' })
        .catch((e: unknown) => e as InstanceType<typeof OpenAI.BadRequestError>);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
        type: 'invalid_request',
        code: 'no_matching_scenario',
      });
      expect((error as Error).message).toContain('only hello');
    } finally {
      await only.close();
    }
  });

  test('a malformed file names the path of each mistake', () => {
    expect(
      () =>
        new ScenarioProvider({
          scenarios: [
            { name: 'two answers', output: [{ type: 'message', text: 'a' }], error: { status: 429 } },
            { name: 'bad call', output: [{ type: 'function_call', arguments: {} }] },
          ],
        }),
    ).toThrowError(ScenarioFileError);
    try {
      new ScenarioProvider({ scenarios: [{ name: 'bad call', output: [{ type: 'function_call', arguments: {} }] }] });
    } catch (error) {
      expect((error as Error).message).toMatch(/scenarios\.0\.output\.0/);
    }
  });
});
