// The open-responses family in front of a stateless, quirky Responses server (as Ollama and early llama.cpp
// builds are: `previous_response_id` ignored, `store` a no-op, no sequence numbers, an empty final output,
// bare error events), reached through OPENRESPONSES_RESPONSES_URL as a user sets it. The openai SDK drives
// the gateway; the gateway's state carries continuations (previous_response_id, background, WebSocket), and
// every stream a client gets passes the events checker (the harness checks each served stream).
import OpenAI from 'openai';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { gatewayProviders, type RunningServer } from '../src/node/index.js';
import { responsesWire, type ScriptedUpstream, startScriptedUpstream } from '../src/testing/index.js';
import { API_KEY, startTestServer, stream } from './harness.js';

const UPSTREAM_KEY = 'sk-ollama-like-5b1e';
let upstream: ScriptedUpstream;
let server: RunningServer;
let client: OpenAI;
beforeAll(async () => {
  upstream = await startScriptedUpstream(
    responsesWire({ noSequenceNumbers: true, emptyFinalOutput: true, bareErrors: true, reasoningTextEvents: true }),
  );
  server = await startTestServer({
    backgroundPollMs: 50,
    providers: gatewayProviders({
      env: { OPENRESPONSES_RESPONSES_URL: `${upstream.rootUrl}/v1`, OPENRESPONSES_RESPONSES_API_KEY: UPSTREAM_KEY },
    }),
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
  await upstream.close();
});
afterEach(() => {
  upstream.received.length = 0;
});

/** The texts of the messages the upstream received as input, in order. */
const inputTexts = (body: Record<string, unknown>) =>
  (body.input as Array<{ type: string; content?: unknown }>)
    .filter((item) => item.type === 'message')
    .map((item) =>
      typeof item.content === 'string'
        ? item.content
        : (item.content as Array<{ text?: string }>).map((part) => part.text ?? '').join(''),
    );

describe('the gateway owns state in front of a stateless upstream', () => {
  test('previous_response_id: the upstream gets the whole context, store false, never an id it cannot know', async () => {
    upstream.script({ kind: 'text', deltas: ['Hi ', 'Ada.'] }, { kind: 'text', deltas: ['You are Ada.'] });
    const first = await client.responses.create({ model: 'llama3.2', input: 'My name is Ada.' });
    expect(first.output_text).toBe('Hi Ada.');
    const second = await client.responses.create({
      model: 'llama3.2',
      input: 'What is my name?',
      previous_response_id: first.id,
    });
    expect(second.output_text).toBe('You are Ada.');
    expect(second.previous_response_id).toBe(first.id);
    const sent = upstream.received[1]!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(sent.body).toMatchObject({ model: 'llama3.2', store: false });
    expect(sent.body.previous_response_id).toBeUndefined();
    expect(inputTexts(sent.body)).toEqual(['My name is Ada.', 'Hi Ada.', 'What is my name?']);
    // The gateway's own ids name nothing upstream.
    expect(JSON.stringify(sent.body.input)).not.toContain(first.output[0]!.id);
  });

  test('a quirky stream (no sequence numbers, empty final output) reaches the SDK whole, its final output the streamed items', async () => {
    upstream.script({ kind: 'text', deltas: ['One', ', two', ', three.'] });
    const events: Array<{ type: string; sequence_number: number }> = [];
    const response = await client.responses.create({ model: 'llama3.2', input: 'Count', stream: true });
    for await (const event of response) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, index) => index));
    const final = (events.at(-1) as unknown as { response: OpenAI.Responses.Response }).response;
    expect(final.status).toBe('completed');
    expect(final.output).toHaveLength(1);
    expect(final.output[0]).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'One, two, three.' }],
    });
    expect(await client.responses.retrieve(final.id)).toMatchObject({ id: final.id, status: 'completed' });
  });

  test('a bare error event mid-stream ends the stream with error and response.failed', async () => {
    upstream.script({ kind: 'error-midstream', deltas: ['Partial'] });
    const { events, violations } = await stream(server, { model: 'llama3.2', input: 'Go' });
    expect(violations).toEqual([]);
    expect(events.at(-2)).toMatchObject({ type: 'error', error: { code: 'server_error' } });
    expect(events.at(-1)).toMatchObject({ type: 'response.failed' });
  });

  test('background: queued, then completed by polling, and continued from', async () => {
    upstream.script({ kind: 'text', deltas: ['Done in the background.'] }, { kind: 'text', deltas: ['Continued.'] });
    const started = await client.responses.create({ model: 'llama3.2', input: 'Work', background: true });
    expect(['queued', 'in_progress']).toContain(started.status);
    let polled = started;
    for (let i = 0; i < 100 && (polled.status === 'queued' || polled.status === 'in_progress'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      polled = await client.responses.retrieve(started.id);
    }
    expect(polled.status).toBe('completed');
    expect(polled.output_text).toBe('Done in the background.');
    const next = await client.responses.create({ model: 'llama3.2', input: 'And?', previous_response_id: polled.id });
    expect(next.output_text).toBe('Continued.');
    expect(inputTexts(upstream.received[1]!.body)).toEqual(['Work', 'Done in the background.', 'And?']);
  });

  test('WebSocket: two turns on one connection, the second continuing the first (store false, in the connection)', async () => {
    upstream.script({ kind: 'text', deltas: ['First.'] }, { kind: 'text', deltas: ['Second.'] });
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const turn = (body: Record<string, unknown>) =>
      new Promise<{ id: string; status: string }>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const message = JSON.parse(data.toString()) as { type: string; response?: { id: string; status: string } };
          if (message.type === 'response.completed' || message.type === 'response.failed') {
            socket.off('message', onMessage);
            resolve(message.response!);
          }
        };
        socket.on('message', onMessage);
        socket.send(JSON.stringify({ type: 'response.create', model: 'llama3.2', store: false, ...body }));
      });
    try {
      const first = await turn({ input: 'Hello' });
      expect(first.status).toBe('completed');
      const second = await turn({ input: 'Again', previous_response_id: first.id });
      expect(second.status).toBe('completed');
    } finally {
      socket.close();
    }
    expect(inputTexts(upstream.received[1]!.body)).toEqual(['Hello', 'First.', 'Again']);
  });
});
