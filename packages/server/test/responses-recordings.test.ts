// The replay upstream's Responses recordings (an OpenAI stream with reasoning, encrypted_content and a function
// call; a local server's stream without sequence numbers, with reasoning_text events and an empty final output;
// a bare error event) through the gateway's open-responses family, reached as a user sets it
// (OPENRESPONSES_RESPONSES_URL): the openai SDK reads each stream, and @openresponses/events' checker accepts it.
import { checkStream } from '@openresponses/events';
import OpenAI from 'openai';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { gatewayProviders, type RunningServer } from '../src/node/index.js';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { API_KEY, startTestServer, stream } from './harness.js';

const RECORDINGS = new URL('../src/testing/recordings/', import.meta.url);
const recordings = readdirSync(RECORDINGS).filter((file) => file.startsWith('responses-'));

let upstream: ReplayUpstream;
let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  server = await startTestServer({
    providers: gatewayProviders({ env: { OPENRESPONSES_RESPONSES_URL: upstream.baseUrl } }),
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});

/** The events of a recording, parsed: what the upstream sent. */
const recordedEvents = (file: string) =>
  readFileSync(new URL(file, RECORDINGS), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; [key: string]: unknown });

/** The text of a response's messages (`output_text` is set by the SDK on whole responses only). */
const textOf = (response: OpenAI.Responses.Response) =>
  response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  strict: false,
};

/** Streams a turn through the openai SDK; the events it handed out and the final response. */
async function streamed(model: string, tools: OpenAI.Responses.Tool[] = []) {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  const response = await client.responses.create({ model, input: 'Hi', stream: true, tools });
  for await (const event of response) events.push(event);
  const final = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
  return { events, final: final.response };
}

describe('the open-responses family replays every Responses recording into a stream the checker accepts', () => {
  test('there are recordings of every kind', () => {
    expect(recordings).toEqual(
      expect.arrayContaining([
        'responses-reasoning-text.sse',
        'responses-tool-get_weather.sse',
        'responses-local-reasoning-text.sse',
        'responses-bare-error.sse',
      ]),
    );
    // The local server's recording has the quirks: no sequence numbers, reasoning_text events, empty final output.
    const local = recordedEvents('responses-local-reasoning-text.sse');
    expect(local.some((event) => 'sequence_number' in event)).toBe(false);
    expect(local.some((event) => event.type === 'response.reasoning_text.delta')).toBe(true);
    expect((local.at(-1)!.response as { output: unknown[] }).output).toEqual([]);
    // As sent, the checker rejects it: what the gateway serves from it must be mended.
    expect(checkStream(local as never)).not.toEqual([]);
  });

  test('OpenAI: reasoning with encrypted_content, then text', async () => {
    const { events, final } = await streamed('responses-reasoning-text');
    expect(checkStream(events as never)).toEqual([]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, index) => index));
    expect(final.status).toBe('completed');
    const recorded = recordedEvents('responses-reasoning-text.sse');
    const text = recorded.find((e) => e.type === 'response.output_text.done')!.text;
    expect(textOf(final)).toBe(text);
    const reasoning = final.output.find((item) => item.type === 'reasoning')!;
    // The gateway seals the upstream's encrypted reasoning in its own state: present, never the upstream's bytes.
    const upstreamEncrypted = (
      recorded.find((e) => e.type === 'response.output_item.done')!.item as Record<string, string>
    ).encrypted_content!;
    expect(typeof reasoning.encrypted_content).toBe('string');
    expect(reasoning.encrypted_content).not.toBe(upstreamEncrypted);
    expect(final.usage).toMatchObject({ input_tokens: 9, output_tokens: 52 });
  });

  test('OpenAI: a function call, its arguments streamed', async () => {
    const { events, final } = await streamed('responses-tool-get_weather', [WEATHER]);
    expect(checkStream(events as never)).toEqual([]);
    const call = final.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"location":"Paris"}' });
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.map((e) => e.delta).join('')).toBe('{"location":"Paris"}');
  });

  test('a local server: no sequence numbers, reasoning_text events, an empty final output', async () => {
    const { events, final } = await streamed('responses-local-reasoning-text');
    expect(checkStream(events as never)).toEqual([]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, index) => index));
    // The final output is what streamed, not the upstream's empty list.
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(textOf(final)).toBe('Hi there! What would you like to talk about?');
  });

  test('a bare error event: the SDK fails with it, and the stream ends in error then response.failed', async () => {
    const failure = await streamed('responses-bare-error').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const { events, violations } = await stream(server, { model: 'responses-bare-error', input: 'Hi' });
    expect(violations).toEqual([]);
    expect(events.at(-2)).toMatchObject({ type: 'error', error: { code: 'server_error' } });
    expect(events.at(-1)).toMatchObject({ type: 'response.failed' });
  });

  test('unstreamed, a recording is the whole response', async () => {
    const response = await client.responses.create({ model: 'responses-reasoning-text', input: 'Hi' });
    expect(response.output_text).toBe('Hello! How can I help you today?');
  });
});
