// Rules of the prose the reference server used to bend: orphan tool outputs are refused (and a failed WebSocket
// continuation evicts what it continued), include is honoured, every item has a status, service_tier is
// resolved, and the connection limit reads well below a minute.
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { DeterministicModel, type ModelProvider } from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { parseDuration } from '../src/node/server.js';
import { formatDuration } from '../src/websocket/session.js';
import { API_KEY, post, startTestServer } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const create = async (body: Record<string, unknown>, target = server) => {
  const response = await post(target, '/v1/responses', { model: 'openresponses-deterministic', ...body });
  return { status: response.status, body: (await response.json()) as ResponseResource & { error: never } };
};
const weather = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const forced = { input: 'Weather in Oslo?', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' } };
const output = (call_id: string) => ({ type: 'function_call_output', call_id, output: '{"c":3}' });

describe('function_call_output needs its function_call in the context', () => {
  test('an orphan output is a 400 naming its call_id', async () => {
    const { status, body } = await create({ input: [{ role: 'user', content: 'hi' }, output('call_x')] });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      type: 'invalid_request',
      code: 'function_call_not_found',
      param: 'input[1].call_id',
    });
  });

  test('the call may come from the previous response or from this input', async () => {
    const first = await create(forced);
    const call = first.body.output.find((i) => i.type === 'function_call') as { call_id: string; name: string };
    expect(
      (await create({ previous_response_id: first.body.id, tools: [weather], input: [output(call.call_id)] })).status,
    ).toBe(200);
    const inline = [
      { type: 'function_call', call_id: 'call_inline', name: 'get_weather', arguments: '{}' },
      output('call_inline'),
    ];
    expect((await create({ tools: [weather], input: inline })).status).toBe(200);
    expect((await create({ previous_response_id: first.body.id, input: [output('call_other')] })).status).toBe(400);
  });

  test('over WebSocket the failed store: false continuation evicts the response it continued', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    const inbox: Array<Record<string, unknown>> = [];
    socket.on('message', (data) => inbox.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    const turn = async (body: Record<string, unknown>) => {
      const start = inbox.length;
      socket.send(
        JSON.stringify({ type: 'response.create', model: 'openresponses-deterministic', store: false, ...body }),
      );
      for (;;) {
        const end = inbox
          .slice(start)
          .find((m) => m.type === 'response.completed' || (m.type === 'error' && 'status' in m));
        if (end)
          return end as {
            type: string;
            status?: number;
            response?: ResponseResource;
            error?: { code: string; param: string };
          };
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    try {
      const first = (await turn(forced)).response!;
      const call = first.output.find((i) => i.type === 'function_call') as { call_id: string };
      const orphan = await turn({ previous_response_id: first.id, tools: [weather], input: [output('call_x')] });
      expect(orphan).toMatchObject({
        type: 'error',
        status: 400,
        error: { code: 'function_call_not_found', param: 'input[0].call_id' },
      });
      const after = await turn({ previous_response_id: first.id, tools: [weather], input: [output(call.call_id)] });
      expect(after).toMatchObject({ type: 'error', error: { code: 'previous_response_not_found' } });
    } finally {
      socket.close();
    }
  });
});

describe('include', () => {
  test('message.output_text.logprobs: certain tokens (logprob 0) that spell the text', async () => {
    const { body } = await create({ input: 'Hello there', include: ['message.output_text.logprobs'], top_logprobs: 2 });
    const part = (body.output[0] as { content: Array<{ text: string; logprobs: Array<Record<string, unknown>> }> })
      .content[0]!;
    expect(part.logprobs.map((l) => l.token).join('')).toBe(part.text);
    expect(part.logprobs[0]).toEqual({
      token: 'You',
      logprob: 0,
      bytes: [89, 111, 117],
      top_logprobs: [{ token: 'You', logprob: 0, bytes: [89, 111, 117] }],
    });
    const plain = await create({ input: 'Hello there' });
    expect((plain.body.output[0] as { content: Array<{ logprobs: unknown[] }> }).content[0]!.logprobs).toEqual([]);
  });

  test('a provider that cannot report logprobs answers that include with a 400', async () => {
    const silent: ModelProvider = Object.assign(new DeterministicModel(), { reportsLogprobs: false });
    const other = await startTestServer({ providers: [silent] });
    try {
      const { status, body } = await create({ input: 'x', include: ['message.output_text.logprobs'] }, other);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'unsupported_include', param: 'include[0]' });
    } finally {
      await other.close();
    }
  });
});

test('every item has a status: reasoning, and compaction items in and out', async () => {
  const { body } = await create({ input: 'Think. [think]' });
  expect(body.output.map((i) => [i.type, (i as { status?: string }).status])).toEqual([
    ['reasoning', 'completed'],
    ['message', 'completed'],
  ]);
  const compacted = (await (
    await post(server, '/v1/responses/compact', { model: 'openresponses-deterministic', input: 'Hi, I am Ada.' })
  ).json()) as { output: Array<{ type: string; status?: string }> };
  expect(compacted.output.at(-1)).toMatchObject({ type: 'compaction', status: 'completed' });
  const input = (await (
    await fetch(`${server.url}/v1/responses/${(await create({ input: compacted.output })).body.id}/input_items`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    })
  ).json()) as { data: Array<{ type: string; status?: string }> };
  expect(input.data.every((item) => typeof item.status === 'string')).toBe(true);
});

test.each([
  [undefined, 'default'],
  ['auto', 'default'],
  ['default', 'default'],
  ['flex', 'flex'],
  ['priority', 'priority'],
])('service_tier %s is answered as %s', async (tier, echoed) => {
  const { body } = await create({ input: 'x', ...(tier ? { service_tier: tier } : {}) });
  expect(body.service_tier).toBe(echoed);
});

test('durations: parsed from the CLI, and said as people say them', () => {
  expect([parseDuration('1500'), parseDuration('90s'), parseDuration('60m'), parseDuration('2h')]).toEqual([
    1500, 90_000, 3_600_000, 7_200_000,
  ]);
  expect([parseDuration('soon'), parseDuration('0'), parseDuration('-5s')]).toEqual([null, null, null]);
  expect([formatDuration(500), formatDuration(1000), formatDuration(45_000), formatDuration(90_000)]).toEqual([
    '500 milliseconds',
    '1 second',
    '45 seconds',
    '1 minute 30 seconds',
  ]);
  expect(formatDuration(3_600_000)).toBe('60 minutes');
});
