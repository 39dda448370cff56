// runAgent against the real server: parallel tools answered in one follow-up, both continuation
// strategies, the call budget, argument validation; the history helpers, including seed 002's replay.
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  createClient,
  defineTool,
  functionCalls,
  MissingToolOutputError,
  outputToInput,
  runAgent,
  sanitizeReplayedHistory,
  toolOutputs,
  type OpenResponsesClient,
} from '../src/index.js';
import type { ItemParam } from '@openresponses/types';

let server: RunningServer;
let client: OpenResponsesClient;
beforeAll(async () => {
  server = await startServer({ validateOutgoing: true, warn: () => {} });
  client = createClient({ baseURL: `${server.url}/v1` });
});
afterAll(() => server.close());

function weatherTools(log: string[]) {
  return [
    defineTool({
      name: 'get_weather',
      description: 'Weather in a city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => (log.push(`weather:${city}`), { city, temperature_c: 17 }),
    }),
    defineTool({
      name: 'get_time',
      description: 'Local time in a city',
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => (log.push(`time:${city}`), `12:00 in ${city}`),
    }),
  ];
}

describe('runAgent', () => {
  for (const [continuation, store] of [
    ['previous_response_id', true],
    ['full_history', false],
  ] as const) {
    test(`parallel calls run together and are answered in one follow-up (${continuation})`, async () => {
      const log: string[] = [];
      const result = await runAgent({
        client,
        input: 'What are the weather and time in Oslo?',
        tools: weatherTools(log),
        continuation,
        store,
      });
      expect(log.sort()).toEqual(['time:Oslo', 'weather:Oslo']);
      expect(result.steps).toHaveLength(2);
      expect(result.stopReason).toBe('final_message');
      expect(result.toolCalls).toBe(2);
      const text = result.response.output.at(-1);
      expect(text).toMatchObject({
        content: [
          {
            text: 'Here is what I found: get_weather returned {"city":"Oslo","temperature_c":17}; get_time returned 12:00 in Oslo.',
          },
        ],
      });
      expect(result.history.filter((i) => i.type === 'function_call_output')).toHaveLength(2);
      if (continuation === 'previous_response_id')
        expect(result.steps[1]!.previous_response_id).toBe(result.steps[0]!.id);
      else expect(result.steps[1]!.previous_response_id).toBeNull();
    });
  }

  test('stops at max_tool_calls', async () => {
    const log: string[] = [];
    const result = await runAgent({
      client,
      input: 'What are the weather and time in Oslo?',
      tools: weatherTools(log),
      maxToolCalls: 1,
    });
    expect(result.stopReason).toBe('max_tool_calls');
    expect(log).toEqual([]);
  });

  test('invalid arguments reach the model as an error output, not the tool', async () => {
    const log: string[] = [];
    const strict = defineTool({
      name: 'get_weather',
      parameters: z.object({ city: z.string().min(10) }),
      execute: ({ city }) => log.push(city),
    });
    const result = await runAgent({ client, input: 'Weather in Rome?', tools: [strict] });
    expect(log).toEqual([]);
    expect(JSON.stringify(result.history)).toMatch(/Error: invalid arguments for get_weather: city/);
  });

  test('the streaming variant reports every event of every step', async () => {
    const seen = new Map<number, string[]>();
    await runAgent({
      client,
      input: 'Weather in Kyoto?',
      tools: weatherTools([]),
      onEvent: (event, step) => seen.set(step, [...(seen.get(step) ?? []), event.type]),
    });
    expect([...seen.keys()]).toEqual([0, 1]);
    expect(seen.get(0)).toContain('response.function_call_arguments.delta');
    expect(seen.get(1)!.at(-1)).toBe('response.completed');
  });
});

describe('history helpers', () => {
  test('toolOutputs fails early, naming every call without an output', async () => {
    const response = await client.responses.create({
      input: 'Weather and time in Lima?',
      tools: [
        { type: 'function', name: 'get_weather' },
        { type: 'function', name: 'get_time' },
      ],
    });
    const calls = functionCalls(response);
    expect(calls).toHaveLength(2);
    expect(() => toolOutputs(calls, { [calls[0]!.call_id]: 'ok' })).toThrow(MissingToolOutputError);
    expect(() => toolOutputs(calls, {})).toThrow(new RegExp(`${calls[0]!.call_id}, ${calls[1]!.call_id}`));
    expect(toolOutputs(calls, { [calls[0]!.call_id]: { a: 1 }, [calls[1]!.call_id]: 'b' })).toEqual([
      { type: 'function_call_output', call_id: calls[0]!.call_id, output: '{"a":1}' },
      { type: 'function_call_output', call_id: calls[1]!.call_id, output: 'b' },
    ]);
  });

  test("seed 002: earlier turns' reasoning is dropped and the items after it lose their ids", () => {
    const history: ItemParam[] = [
      { type: 'message', role: 'user', content: 'What tools do you have now?' },
      { type: 'reasoning', id: 'rs_0fdd', summary: [], content: null, encrypted_content: null },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_0fdd',
        content: [{ type: 'output_text', text: 'I can check the weather.', annotations: [] }],
      },
      { type: 'message', role: 'user', content: "What's the time in Shanghai? call the tool please" },
      { type: 'reasoning', id: 'rs_now', summary: [] },
      { type: 'function_call', id: 'fc_now', call_id: 'call_1', name: 'get_time', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: '12:00' },
    ];
    const clean = sanitizeReplayedHistory(history);
    expect(clean.map((i) => [i.type, (i as { id?: string }).id])).toEqual([
      ['message', undefined],
      ['message', undefined],
      ['message', undefined],
      ['reasoning', 'rs_now'],
      ['function_call', 'fc_now'],
      ['function_call_output', undefined],
    ]);
  });

  test('replaying a sanitized multi-turn history with reasoning works on the server', async () => {
    const first = await client.responses.create({ input: 'My name is Mei. [think]', store: false });
    const replay = sanitizeReplayedHistory([
      { type: 'message', role: 'user', content: 'My name is Mei. [think]' },
      ...outputToInput(first),
      { type: 'message', role: 'user', content: 'What is my name?' },
    ]);
    const second = await client.responses.create({ input: replay, store: false });
    expect(second.output.at(-1)).toMatchObject({ content: [{ text: 'Your name is Mei.' }] });
  });
});
