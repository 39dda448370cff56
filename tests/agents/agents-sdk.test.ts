// The OpenAI Agents SDK (pinned) against the reference server's CLI on 127.0.0.1, on the Responses API:
// tools, streaming, handoffs, previousResponseId and structured output on the embedded model; tools,
// streaming and previousResponseId through each registered gateway family in front of a scripted upstream in its wire format.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { FAMILY_TYPES } from '@openresponses/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { API_KEY, type CliServer, type Gateway, startCliServer, startGateway } from './server.js';

// Traces would go to OpenAI's platform: off.
setTracingDisabled(true);

const runnerFor = (server: CliServer) =>
  new Runner({
    modelProvider: new OpenAIProvider({ apiKey: API_KEY, baseURL: server.baseUrl, useResponses: true }),
  });

function weatherTool(calls: string[]) {
  return tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      const where = city;
      calls.push(where);
      return `Sunny in ${where}`;
    },
  });
}

describe('the Agents SDK on the embedded model', () => {
  let server: CliServer;
  let runner: Runner;
  beforeAll(async () => {
    server = await startCliServer([]);
    runner = runnerFor(server);
  });
  afterAll(() => server?.close());
  const model = 'openresponses-deterministic';

  test('tools: the SDK runs the call and the model reads its output back', async () => {
    const calls: string[] = [];
    const agent = new Agent({ name: 'Assistant', model, tools: [weatherTool(calls)] });
    const result = await runner.run(agent, 'What is the weather in Paris?');
    expect(calls).toEqual(['Paris']);
    expect(result.finalOutput).toContain('get_weather returned Sunny in Paris');
  });

  test('streaming: text deltas arrive before the run completes', async () => {
    const agent = new Agent({ name: 'Assistant', model });
    const result = await runner.run(agent, 'Tell me something about streams', { stream: true });
    const deltas: string[] = [];
    for await (const text of result.toTextStream()) deltas.push(text);
    await result.completed;
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(result.finalOutput);
    expect(result.finalOutput).toBe('You said: "Tell me something about streams".');
  });

  test('handoffs: the triage agent hands off and the specialist answers', async () => {
    const billing = new Agent({
      name: 'Billing agent',
      model,
      instructions: 'Respond with "Billing here: refund sent."',
    });
    const triage = new Agent({ name: 'Triage agent', model, handoffs: [billing] });
    const result = await runner.run(triage, 'I have a billing question');
    expect(result.lastAgent?.name).toBe('Billing agent');
    expect(server.received.at(-1)!.instructions).toBe('Respond with "Billing here: refund sent."');
  });

  test('previousResponseId: the second turn continues the stored first', async () => {
    const agent = new Agent({ name: 'Assistant', model });
    const first = await runner.run(agent, 'Hello! My name is Ada.');
    expect(first.lastResponseId).toMatch(/^resp_/);
    const second = await runner.run(agent, "What's my name?", { previousResponseId: first.lastResponseId });
    expect(server.received.at(-1)!.previous_response_id).toBe(first.lastResponseId);
    expect(second.finalOutput).toBe('Your name is Ada.');
  });

  test('structured output: an outputType agent gets an instance of its schema', async () => {
    const Forecast = z.object({
      city: z.string(),
      celsius: z.number().int(),
      days: z.array(z.object({ day: z.string(), rain: z.boolean() })),
    });
    const agent = new Agent({ name: 'Forecaster', model, outputType: Forecast });
    const result = await runner.run(agent, 'Forecast for Paris at 21 degrees');
    expect(Forecast.parse(result.finalOutput)).toEqual(result.finalOutput);
    expect(result.finalOutput).toMatchObject({ celsius: 21 });
    expect((server.received.at(-1)!.text as { format: { type: string } }).format.type).toBe('json_schema');
  });
});

describe.each(FAMILY_TYPES)('the Agents SDK through the gateway: the %s family', (family) => {
  let gateway: Gateway;
  let runner: Runner;
  beforeAll(async () => {
    gateway = await startGateway(family);
    runner = runnerFor(gateway.server);
  });
  afterAll(() => gateway?.close());

  test('tools and streaming: the call runs, the upstream gets its output, the answer streams', async () => {
    const { upstream, wire } = gateway;
    upstream.script(
      { kind: 'tool-calls', calls: [{ id: 'call_w_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { kind: 'text', deltas: ['It is ', 'sunny in Paris.'] },
    );
    const calls: string[] = [];
    const agent = new Agent({ name: 'Assistant', model: 'via-gateway', tools: [weatherTool(calls)] });
    const result = await runner.run(agent, 'What is the weather in Paris?', { stream: true });
    const deltas: string[] = [];
    for await (const text of result.toTextStream()) deltas.push(text);
    await result.completed;
    expect(calls).toEqual(['Paris']);
    expect(wire.toolResults(upstream.received.at(-1)!.body)).toEqual([
      { callId: 'call_w_1', output: 'Sunny in Paris' },
    ]);
    expect(deltas).toEqual(['It is ', 'sunny in Paris.']);
    expect(result.finalOutput).toBe('It is sunny in Paris.');
  });

  test('previousResponseId: the gateway keeps the state the stateless upstream does not', async () => {
    const { upstream } = gateway;
    upstream.script({ kind: 'text', deltas: ['Hello Ada.'] }, { kind: 'text', deltas: ['Again.'] });
    const agent = new Agent({ name: 'Assistant', model: 'via-gateway' });
    const first = await runner.run(agent, 'Hello! My name is Ada.');
    const second = await runner.run(agent, 'And again', { previousResponseId: first.lastResponseId });
    expect(second.finalOutput).toBe('Again.');
    // The upstream got the whole conversation: the first turn came from the gateway's store.
    const sent = JSON.stringify(upstream.received.at(-1)!.body);
    expect(sent).toContain('My name is Ada.');
    expect(sent).toContain('Hello Ada.');
  });
});
