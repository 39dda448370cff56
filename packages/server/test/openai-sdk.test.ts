// The official openai npm package against the real server: create, streaming, stream().finalResponse(),
// a function-tool round trip and multi-turn with previous_response_id. Every stream is also checked.
import OpenAI from 'openai';
import { checkStream } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startTestServer();
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(() => server.close());

const model = 'openresponses-deterministic';

describe('openai SDK', () => {
  test('responses.create returns a completed response with output_text', async () => {
    const response = await client.responses.create({ model, input: 'Hello there' });
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('You said: "Hello there".');
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
  });

  test('streaming: every event arrives in order and the stream passes the checker', async () => {
    const stream = await client.responses.create({ model, input: 'Stream this please [think]', stream: true });
    const events: Array<{ type: string }> = [];
    let text = '';
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(events.some((e) => e.type === 'response.reasoning_summary_text.delta')).toBe(true);
    expect(text).toBe('You said: "Stream this please [think]".');
    expect(checkStream(events, {})).toEqual([]);
  });

  test('responses.stream().finalResponse() rebuilds the response', async () => {
    const final = await client.responses.stream({ model, input: 'Final answer please' }).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('You said: "Final answer please".');
  });

  test('a function-tool round trip', async () => {
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        description: 'Weather for a city',
        strict: false,
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
      },
    ];
    const first = await client.responses.create({ model, input: 'What is the weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: 'Paris' });
    const second = await client.responses.create({
      model,
      previous_response_id: first.id,
      tools,
      input: [
        {
          type: 'function_call_output',
          call_id: (call as { call_id: string }).call_id,
          output: '{"temperature_c":18}',
        },
      ],
    });
    expect(second.output_text).toBe('Here is what I found: get_weather returned {"temperature_c":18}.');
  });

  test('multi-turn with previous_response_id recalls earlier turns', async () => {
    const one = await client.responses.create({ model, input: 'Hi, my name is Grace.' });
    const two = await client.responses.create({
      model,
      previous_response_id: one.id,
      input: 'My favorite color is teal.',
    });
    const three = await client.responses.create({ model, previous_response_id: two.id, input: 'What is my name?' });
    expect(three.output_text).toBe('Your name is Grace.');
    const four = await client.responses.create({
      model,
      previous_response_id: three.id,
      input: 'What is my favorite color?',
    });
    expect(four.output_text).toBe('Your favorite color is teal.');
  });

  test('inline history without ids, with earlier reasoning items, is accepted', async () => {
    const first = await client.responses.create({ model, input: 'My name is Linus. [think]', store: false });
    const history = [
      { role: 'user' as const, content: 'My name is Linus. [think]' },
      ...first.output.map((item) => ({ ...item, id: undefined }) as never),
      { role: 'user' as const, content: 'What is my name?' },
    ];
    const second = await client.responses.create({ model, input: history, store: false });
    expect(second.output_text).toBe('Your name is Linus.');
  });

  test('errors surface as SDK errors with the spec status and param', async () => {
    const error = await client.responses
      .create({ model, input: 'x', previous_response_id: 'resp_missing' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
    expect((error as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });
  });
});
