// Protocol semantics on the real server: tool_choice as a hard constraint, parallel calls,
// max_tool_calls, max_output_tokens -> incomplete, failures as error + response.failed + [DONE],
// store: false, retrieval and deletion, reasoning round trips, compaction. Every stream is checked.
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const create = async (body: Record<string, unknown>) => {
  const response = await post(server, '/v1/responses', body);
  return { status: response.status, body: (await response.json()) as ResponseResource & { error: unknown } };
};
const get = (path: string, method = 'GET') =>
  fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${API_KEY}` } });
const calls = (r: ResponseResource) =>
  r.output.filter((i) => i.type === 'function_call').map((i) => (i as { name: string }).name);
const text = (r: ResponseResource) =>
  r.output
    .flatMap((i) => (i.type === 'message' ? i.content : []))
    .map((p) => ('text' in p ? p.text : ''))
    .join('');

const tools = ['get_weather', 'get_time', 'send_email'].map((name) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}));

describe('tool_choice', () => {
  test('auto calls the tools the user mentions, in parallel', async () => {
    const { body } = await create({ input: 'Weather and time in Oslo?', tools });
    expect(calls(body)).toEqual(['get_weather', 'get_time']);
  });
  test('parallel_tool_calls: false makes one call', async () => {
    const { body } = await create({ input: 'Weather and time in Oslo?', tools, parallel_tool_calls: false });
    expect(calls(body)).toEqual(['get_weather']);
  });
  test('none never calls', async () => {
    const { body } = await create({ input: 'Weather in Oslo?', tools, tool_choice: 'none' });
    expect(calls(body)).toEqual([]);
    expect(text(body)).toContain('Weather in Oslo');
  });
  test('required calls even when nothing is mentioned', async () => {
    const { body } = await create({ input: 'Hello', tools, tool_choice: 'required' });
    expect(calls(body)).toHaveLength(1);
  });
  test('a specific function is the one called', async () => {
    const { body } = await create({
      input: 'Weather in Oslo?',
      tools,
      tool_choice: { type: 'function', name: 'send_email' },
    });
    expect(calls(body)).toEqual(['send_email']);
  });
  test('allowed_tools is a hard limit on which tools are called', async () => {
    const { body } = await create({
      input: 'Weather and time in Oslo, then send_email',
      tools,
      tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'get_time' }] },
    });
    expect(calls(body)).toEqual(['get_time']);
    expect(body.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time', 'send_email']);
  });
  test('max_tool_calls bounds the calls', async () => {
    const { body } = await create({ input: 'Weather and time in Oslo?', tools, max_tool_calls: 1 });
    expect(calls(body)).toHaveLength(1);
  });
});

describe('endings', () => {
  test('max_output_tokens ends incomplete with incomplete_details, streamed correctly', async () => {
    const { events, violations } = await stream(server, { input: 'Tell me everything [long]', max_output_tokens: 20 });
    expect(violations).toEqual([]);
    const final = events.at(-1) as { type: string; response: ResponseResource };
    expect(final.type).toBe('response.incomplete');
    expect(final.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.response.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
    expect(final.response.usage?.output_tokens).toBe(20);
  });
  test('a model failure streams error, then response.failed, then [DONE]', async () => {
    const { events, sawDone, violations } = await stream(server, { input: 'please [fail]' });
    expect(violations).toEqual([]);
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect(sawDone).toBe(true);
    expect((events.at(-2) as { error: unknown }).error).toMatchObject({ type: 'model_error', code: 'model_failed' });
  });
  test('a model failure without streaming is a 500 model_error', async () => {
    const { status, body } = await create({ input: 'please [fail]' });
    expect(status).toBe(500);
    expect(body.error).toMatchObject({ type: 'model_error', code: 'model_failed' });
  });
  test('a refusal streams as a refusal part', async () => {
    const { events, violations } = await stream(server, { input: 'do it [refuse]' });
    expect(violations).toEqual([]);
    expect(events.some((e) => e.type === 'response.refusal.delta')).toBe(true);
  });
});

describe('usage', () => {
  test("the embedded model's input_tokens are the context's words: instructions, history and input", async () => {
    // Words: 2 instructions + 5 input; the continuation adds the first turn's answer and 3 more.
    const first = await create({ instructions: 'Be brief.', input: 'My name is Ada Lovelace.' });
    expect(first.body.usage?.input_tokens).toBe(7);
    const answerWords = text(first.body).split(/\s+/).filter(Boolean).length;
    const second = await create({ input: "What's my name?", previous_response_id: first.body.id });
    expect(second.body.usage?.input_tokens).toBe(5 + answerWords + 3);
    expect(text(second.body)).toBe('Your name is Ada.');
  });
});

describe('state', () => {
  test('store: false is never persisted', async () => {
    const { body } = await create({ input: 'secret', store: false });
    expect((await get(`/v1/responses/${body.id}`)).status).toBe(404);
    const continued = await create({ input: 'again', previous_response_id: body.id });
    expect(continued.status).toBe(404);
  });
  test('stored responses can be retrieved, listed and deleted', async () => {
    const { body } = await create({ input: 'keep me' });
    expect(((await (await get(`/v1/responses/${body.id}`)).json()) as ResponseResource).id).toBe(body.id);
    const items = (await (await get(`/v1/responses/${body.id}/input_items`)).json()) as {
      object: string;
      data: Array<{ type: string; role: string }>;
    };
    expect(items.object).toBe('list');
    expect(items.data).toMatchObject([{ type: 'message', role: 'user' }]);
    expect(await (await get(`/v1/responses/${body.id}`, 'DELETE')).json()).toEqual({
      id: body.id,
      object: 'response.deleted',
      deleted: true,
    });
    expect((await get(`/v1/responses/${body.id}`)).status).toBe(404);
  });
  test('reasoning carries a server-issued encrypted_content that round-trips', async () => {
    const { body } = await create({
      input: 'My favorite city is Rome. [think]',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    const reasoning = body.output.find((i) => i.type === 'reasoning') as {
      encrypted_content: string;
      summary: unknown[];
    };
    expect(reasoning.encrypted_content).toMatch(/^or3\./);
    expect(reasoning.summary.length).toBeGreaterThan(0);
    const replay = await create({
      input: [
        { role: 'user', content: 'My favorite city is Rome. [think]' },
        ...body.output,
        { role: 'user', content: 'What is my favorite city?' },
      ],
      store: false,
    });
    expect(replay.status).toBe(200);
    expect(text(replay.body)).toBe('Your favorite city is Rome.');
  });
  test('compaction returns a window that seeds a new chain', async () => {
    const first = await create({ input: 'My name is Ravi.' });
    const compacted = (await (
      await post(server, '/v1/responses/compact', {
        model: 'openresponses-deterministic',
        previous_response_id: first.body.id,
        input: [{ role: 'user', content: 'Remember that the launch is on Friday.' }],
      })
    ).json()) as { object: string; output: Array<{ type: string }> };
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.at(-1)!.type).toBe('compaction');
    const next = await create({ input: [...compacted.output, { role: 'user', content: 'What is my name?' }] });
    expect(text(next.body)).toBe('Your name is Ravi.');
    const altered = await create({ input: [{ ...compacted.output.at(-1)!, encrypted_content: 'or1.tampered.sig' }] });
    expect(altered.status).toBe(400);
  });
  test('instructions steer the answer and are not carried over', async () => {
    const first = await create({ input: 'hi', instructions: 'Always respond with "Ahoy!"' });
    expect(text(first.body)).toBe('Ahoy!');
    const second = await create({ input: 'hi again', previous_response_id: first.body.id });
    expect(text(second.body)).toBe('You said: "hi again".');
  });
});
