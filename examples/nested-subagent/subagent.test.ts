// The nested stream end to end: the real server streams the sub-agent inside the parent response; the
// client (with the registry) validates every event; the fold rebuilds the sub-agent's response.
import { createClient } from '@openresponses/client';
import type { AnyStreamingEvent } from '@openresponses/events';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { foldSubagents, OrchestratorModel, registry } from './subagent.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    providers: [new OrchestratorModel()],
    registry,
    validateOutgoing: true,
    warn: () => {},
  });
});
afterAll(() => server.close());

test('the sub-agent streams inside the parent, and the fold rebuilds the nested tree', async () => {
  const client = createClient({ baseURL: `${server.url}/v1`, registry, validate: 'exact' });
  const stream = await client.responses.stream({
    model: 'acme-orchestrator',
    input: 'What is the weather in Lyon?',
    tools: [{ type: 'acme:subagent', agent: 'WeatherAgent' }] as never,
  });
  const events: AnyStreamingEvent[] = [];
  for await (const event of stream) events.push(event);
  const parent = await stream.finalResponse();

  // The parent sees only the sub-agent's result.
  expect(parent.output.map((item) => item.type)).toEqual(['acme:subagent_call', 'message']);
  const call = parent.output[0] as unknown as { call_id: string; result: string };
  expect(call.result).toBe('The weather in Lyon is sunny, 15°C.');
  expect(parent.output[1]).toMatchObject({
    content: [{ text: 'The WeatherAgent says: The weather in Lyon is sunny, 15°C.' }],
  });

  // The user sees the whole sub-agent run, keyed by the parent call_id.
  const runs = foldSubagents(events);
  expect([...runs.keys()]).toEqual([call.call_id]);
  const run = runs.get(call.call_id)!;
  expect(run.violations).toEqual([]);
  expect(run.response?.status).toBe('completed');
  expect(run.response?.output.map((item) => item.type)).toEqual(['reasoning', 'function_call', 'message']);
  expect(run.response?.output[0]).toMatchObject({
    summary: [{ text: 'Thinking about the weather in Lyon. Deciding to call get_weather.' }],
  });
  expect(run.response?.output[1]).toMatchObject({ name: 'get_weather', arguments: '{"location":"Lyon"}' });
  expect(run.response?.output[2]).toMatchObject({ content: [{ text: 'The weather in Lyon is sunny, 15°C.' }] });
});

test('a client without the registry ignores the vendor events and still gets the parent answer', async () => {
  const client = createClient({ baseURL: `${server.url}/v1` });
  const final = await (
    await client.responses.stream({
      model: 'acme-orchestrator',
      input: 'Weather in Nice?',
      tools: [{ type: 'acme:subagent', agent: 'WeatherAgent' }] as never,
    })
  ).finalResponse();
  expect(final.output.at(-1)).toMatchObject({ type: 'message' });
});
