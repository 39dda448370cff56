// WebSocket turns on /v1/responses with the `ws` package as the client: single and sequential turns,
// store: false continuation on the same socket, previous_response_not_found, eviction after a failed
// continuation, the connection limit, and error envelopes. Every turn's events pass the checker.
import { checkStream } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ connectionLimitMs: 1500 });
});
afterAll(() => server.close());

type Message = { type: string; [key: string]: unknown };

async function connect(headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` }) {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, { headers });
  const inbox: Message[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    inbox.push(JSON.parse(data.toString()) as Message);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  /** Sends one response.create and collects messages until its terminal event or an error envelope. */
  const turn = async (body: Record<string, unknown>) => {
    const start = inbox.length;
    socket.send(JSON.stringify({ type: 'response.create', model: 'openresponses-deterministic', ...body }));
    for (;;) {
      const messages = inbox.slice(start);
      const end = messages.findIndex(
        (m) =>
          ['response.completed', 'response.failed', 'response.incomplete'].includes(m.type) ||
          (m.type === 'error' && 'status' in m),
      );
      if (end >= 0) return messages.slice(0, end + 1);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { socket, turn, inbox };
}
const final = (messages: Message[]) =>
  messages.at(-1) as { type: string; response: { id: string; output: Array<{ content?: Array<{ text: string }> }> } };
const answer = (messages: Message[]) => final(messages).response.output.at(-1)!.content![0]!.text;

describe('WebSocket mode', () => {
  test('a single turn streams the same events as SSE', async () => {
    const { socket, turn } = await connect();
    const messages = await turn({ input: 'Hello over WebSocket' });
    expect(checkStream(messages, {})).toEqual([]);
    expect(answer(messages)).toBe('You said: "Hello over WebSocket".');
    socket.close();
  });

  test('sequential turns continue with previous_response_id, store: false on the same socket', async () => {
    const { socket, turn } = await connect();
    const one = await turn({ input: 'My name is Ada.', store: false });
    const two = await turn({ input: 'What is my name?', store: false, previous_response_id: final(one).response.id });
    expect(answer(two)).toBe('Your name is Ada.');
    // Not persisted: a new socket cannot continue it.
    const other = await connect();
    const missing = await other.turn({ input: 'again', previous_response_id: final(one).response.id });
    expect(missing.at(-1)).toMatchObject({
      type: 'error',
      status: 404,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    socket.close();
    other.socket.close();
  });

  test('two messages sent at once are processed one after the other', async () => {
    const { socket, inbox } = await connect();
    socket.send(JSON.stringify({ type: 'response.create', input: 'first' }));
    socket.send(JSON.stringify({ type: 'response.create', input: 'second' }));
    while (inbox.filter((m) => m.type === 'response.completed').length < 2) await new Promise((r) => setTimeout(r, 10));
    const firstDone = inbox.findIndex((m) => m.type === 'response.completed');
    const secondCreated = inbox.findIndex(
      (m, i) => i > 0 && m.type === 'response.created' && i > inbox.findIndex((x) => x.type === 'response.created'),
    );
    expect(secondCreated).toBeGreaterThan(firstDone);
    socket.close();
  });

  test('a failed continuation evicts the referenced response', async () => {
    const { socket, turn } = await connect();
    const one = await turn({ input: 'Keep this', store: false });
    const id = final(one).response.id;
    const failed = await turn({
      input: [{ type: 'item_reference', id: 'msg_missing' }],
      store: false,
      previous_response_id: id,
    });
    expect(failed.at(-1)).toMatchObject({ type: 'error', status: 404 });
    const after = await turn({ input: 'continue', store: false, previous_response_id: id });
    expect(after.at(-1)).toMatchObject({ type: 'error', error: { code: 'previous_response_not_found' } });
    socket.close();
  });

  test('stream, stream_options and background must not be sent', async () => {
    const { socket, turn } = await connect();
    const messages = await turn({ input: 'hi', stream: true });
    expect(messages.at(-1)).toMatchObject({ type: 'error', status: 400, error: { param: 'stream' } });
    socket.close();
  });

  test('bad messages get error envelopes and the connection stays usable', async () => {
    const { socket, inbox, turn } = await connect();
    socket.send('not json');
    socket.send(JSON.stringify({ type: 'response.cancel' }));
    while (inbox.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(inbox.slice(0, 2)).toMatchObject([
      { type: 'error', status: 400, error: { code: 'invalid_json' } },
      { type: 'error', status: 400, error: { code: 'unsupported_event_type', param: 'type' } },
    ]);
    expect(answer(await turn({ input: 'still here' }))).toBe('You said: "still here".');
    socket.close();
  });

  test('without a valid key the upgrade is refused with 401', async () => {
    await expect(connect({ authorization: 'Bearer wrong' })).rejects.toThrow(/401/);
  });

  test('the connection limit ends the socket with websocket_connection_limit_reached', async () => {
    const { socket, inbox } = await connect();
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    expect(await closed).toBe(1000);
    expect(inbox.at(-1)).toMatchObject({ type: 'error', error: { code: 'websocket_connection_limit_reached' } });
  });
});

describe('the API key offered as a subprotocol', () => {
  const keyProtocol = `openresponses-api-key.${API_KEY}`;
  /** Opens a socket offering `protocols` (no authorization header) and reports the handshake's answer. */
  const handshake = (protocols: string[]) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string; socket?: WebSocket }>(
      (resolve, reject) => {
        const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, protocols);
        socket.once('upgrade', (response) => {
          socket.once('open', () => resolve({ status: 101, headers: response.headers, body: '', socket }));
        });
        socket.once('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
        });
        socket.once('error', (error) => {
          if (!/Unexpected server response/.test(error.message)) reject(error);
        });
      },
    );

  test.each([[[keyProtocol, 'openresponses']], [['openresponses', keyProtocol]]])(
    'the handshake answers openresponses, never the key (offered %j)',
    async (protocols) => {
      const answer = await handshake(protocols);
      expect(answer.status).toBe(101);
      expect(answer.headers['sec-websocket-protocol']).toBe('openresponses');
      expect(JSON.stringify(answer.headers)).not.toContain(API_KEY);
      // The key still authenticates the session: a turn runs.
      const socket = answer.socket!;
      const done = new Promise<string>((resolve) =>
        socket.on('message', (data) => {
          const type = (JSON.parse(data.toString()) as Message).type;
          if (type === 'response.completed' || type === 'error') resolve(type);
        }),
      );
      socket.send(JSON.stringify({ type: 'response.create', model: 'openresponses-deterministic', input: 'Hi' }));
      expect(await done).toBe('response.completed');
      socket.close();
    },
  );

  test('an offer of the key protocol alone is refused with a 400 that does not echo it', async () => {
    const answer = await handshake([keyProtocol]);
    expect(answer.status).toBe(400);
    expect(answer.headers['sec-websocket-protocol']).toBeUndefined();
    expect(JSON.stringify(answer.headers) + answer.body).not.toContain(API_KEY);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { type: 'invalid_request', code: 'invalid_websocket_handshake', param: 'sec-websocket-protocol' },
    });
  });
});
