// The embedded model honours `text.format`: a `json_schema` answer is an instance of the schema (checked by
// Zod against the schema it was made from, as the Agents SDK does with an `outputType`), a `json_object`
// answer is a JSON object (the superset profile reads `json_object`; the spec profile refuses it).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { RunningServer } from '../src/node/index.js';
import { post, startTestServer, stream } from './harness.js';

let server: RunningServer;
let spec: RunningServer;
beforeAll(async () => {
  [server, spec] = await Promise.all([startTestServer(), startTestServer({ ingress: 'spec' })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), spec?.close()]);
});

const Weather = z.object({
  city: z.string(),
  celsius: z.number().int().min(-90).max(60),
  when: z.iso.datetime(),
  conditions: z.enum(['sunny', 'rain']),
  alerts: z.array(z.object({ level: z.number(), text: z.string().min(12) })).min(2),
  note: z.string().nullable(),
  source: z.union([z.object({ kind: z.literal('station'), id: z.string().max(4) }), z.literal('model')]),
});

// A recursive schema: `$ref` to its own definition, ended by the model at a null (nullable) child.
const Node: z.ZodType<{ name: string; child: unknown }> = z.lazy(() =>
  z.object({ name: z.string(), child: Node.nullable() }),
);

const outputText = (response: { output: Array<{ type: string; content?: Array<{ text?: string }> }> }) =>
  response.output.find((item) => item.type === 'message')!.content![0]!.text!;

describe('text.format json_schema', () => {
  test.each([
    ['a nested schema with formats, bounds, enums, unions and minItems', Weather],
    ['a recursive schema through $ref', Node],
  ])('%s: the answer parses with the schema it came from', async (_name, schema) => {
    const response = await post(server, '/v1/responses', {
      input: 'What is the weather in Paris at 25 degrees?',
      text: { format: { type: 'json_schema', name: 'answer', schema: z.toJSONSchema(schema), strict: true } },
    });
    expect(response.status).toBe(200);
    const answer = JSON.parse(outputText(await response.json()));
    expect(schema.safeParse(answer).error).toBeUndefined();
  });

  test('streamed, after tool outputs too: the final message is the instance', async () => {
    const { events } = await stream(server, {
      input: [
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny, 21' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }],
      text: { format: { type: 'json_schema', name: 'w', schema: z.toJSONSchema(Weather) } },
    });
    const done = events.find((e) => e.type === 'response.output_text.done') as { text: string } | undefined;
    expect(Weather.safeParse(JSON.parse(done!.text)).error).toBeUndefined();
  });

  test('plain text without a format', async () => {
    const response = await post(server, '/v1/responses', { input: 'hello' });
    expect(outputText(await response.json())).toBe('You said: "hello".');
  });
});

describe('text.format json_object', () => {
  test('is answered with a JSON object and echoed as json_object', async () => {
    const response = await post(server, '/v1/responses', {
      input: 'hello',
      text: { format: { type: 'json_object' } },
    });
    const body = await response.json();
    expect(JSON.parse(outputText(body))).toEqual({ answer: 'You said: "hello".' });
    expect(body.text.format).toEqual({ type: 'json_object' });
  });

  test('the spec profile refuses it, naming the field', async () => {
    const response = await post(spec, '/v1/responses', { input: 'hi', text: { format: { type: 'json_object' } } });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ param: 'text.format.type' });
  });
});
