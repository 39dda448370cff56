// WebSocket sessions against the real server (the ws package as the WebSocket on Node 20): sequential
// turns, continuation, and the spec's recovery after the connection limit, with and without storage.
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { createClient, OpenResponsesError, type OpenResponsesClient, type WebSocketConstructor } from '../src/index.js';

const KEY = 'ws-key';
let server: RunningServer;
let client: OpenResponsesClient;
beforeAll(async () => {
  server = await startServer({ apiKeys: [KEY], validateOutgoing: true, connectionLimitMs: 600, warn: () => {} });
  client = createClient({ baseURL: `${server.url}/v1`, apiKey: KEY });
});
afterAll(() => server.close());

const connect = (options = {}) =>
  client.responses.connect({ WebSocket: WebSocket as unknown as WebSocketConstructor, ...options });
const text = (r: { output: readonly unknown[] }) =>
  (r.output.at(-1) as { content?: Array<{ text?: string }> } | undefined)?.content?.[0]?.text;

describe('WebSocket sessions', () => {
  test('create streams a turn; turns run in order', async () => {
    const session = await connect();
    const one = session.create({ input: 'first' });
    const two = session.create({ input: 'second' });
    const [a, b] = await Promise.all([one.finalResponse(), two.finalResponse()]);
    expect([text(a), text(b)]).toEqual(['You said: "first".', 'You said: "second".']);
    expect(b.created_at).toBeGreaterThanOrEqual(a.created_at);
    session.close();
  });

  test('send continues with previous_response_id on the same socket (store: false)', async () => {
    const session = await connect();
    const first = await session.send('My name is Noor.', { store: false });
    const answer = await session.send('What is my name?', { store: false });
    expect(text(answer)).toBe('Your name is Noor.');
    expect(answer.previous_response_id).toBe(first.id);
    expect(session.lastResponseId).toBe(answer.id);
    session.close();
  });

  for (const store of [true, false]) {
    test(`after websocket_connection_limit_reached, send recovers (store: ${store})`, async () => {
      const session = await connect();
      const first = await session.send('My name is Ines.', { store });
      await new Promise((r) => setTimeout(r, 900)); // past the server's connection limit
      const answer = await session.send('What is my name?', { store });
      expect(text(answer)).toBe('Your name is Ines.');
      // Stored: the chain continues; not stored: a new chain carrying the full context.
      expect(answer.previous_response_id).toBe(store ? first.id : null);
      session.close();
    });
  }

  test('recovery can seed the new chain from a compacted window', async () => {
    const session = await connect({ compactModel: 'openresponses-deterministic' });
    await session.send('My name is Omar.', { store: false });
    await new Promise((r) => setTimeout(r, 900));
    const answer = await session.send('What is my name?', { store: false });
    expect(text(answer)).toBe('Your name is Omar.');
    session.close();
  });

  test('an error envelope surfaces as an OpenResponsesError with its status and code', async () => {
    const session = await connect();
    const error = await session
      .create({ input: 'x', previous_response_id: 'resp_missing' })
      .finalResponse()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenResponsesError);
    expect(error).toMatchObject({ status: 404, code: 'previous_response_not_found', param: 'previous_response_id' });
    session.close();
  });
});
