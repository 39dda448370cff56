// The WebSocket protocol as a transport-neutral session, driven by a fake socket (no `ws`, no network):
// turns in order, store: false continuation, LRU local cache, bad messages, unsupported versions, the
// connection limit, and closing the socket cancelling the running turn and dropping queued ones.
import { checkStream } from '@openresponses/events';
import { describe, expect, test } from 'vitest';
import { InMemoryResponseStore } from '../src/index.js';
import { createResponsesService } from '../src/service/service.js';
import type { SessionOptions, SessionSocket } from '../src/websocket/session.js';

type Message = { type: string; [key: string]: unknown };

/** A socket that records what the session sends and whether (and how) it closed it. */
function fakeSocket() {
  const sent: Message[] = [];
  const closes: Array<{ code?: number; reason?: string }> = [];
  const socket: SessionSocket = {
    send: (text) => sent.push(JSON.parse(text) as Message),
    close: (code, reason) => closes.push({ code, reason }),
  };
  return { socket, sent, closes };
}

function open(options: SessionOptions & { version?: string } = {}) {
  const store = new InMemoryResponseStore();
  const service = createResponsesService({ store, validateOutgoing: true });
  const fake = fakeSocket();
  const session = service.openSession(
    fake.socket,
    { header: (name) => (name === 'openresponses-version' ? (options.version ?? null) : null) },
    options,
  );
  const create = (body: Record<string, unknown>) =>
    session.receive(JSON.stringify({ type: 'response.create', model: 'openresponses-deterministic', ...body }));
  return { ...fake, session, store, create };
}

const terminal = (messages: Message[]) =>
  messages.filter((m) => ['response.completed', 'response.failed', 'response.incomplete'].includes(m.type));
const completedResponse = (message: Message) =>
  message.response as { id: string; status: string; output: Array<{ content?: Array<{ text: string }> }> };

describe('WebSocket session over a fake socket', () => {
  test('a turn streams checked events; two turns sent at once run one after the other', async () => {
    const { sent, session, create } = open();
    create({ input: 'first' });
    create({ input: 'second' });
    await session.idle();
    const ends = sent.flatMap((m, i) => (m.type === 'response.completed' ? [i] : []));
    expect(ends).toHaveLength(2);
    const secondStart = sent.findIndex((m, i) => i > ends[0]! && m.type === 'response.created');
    expect(secondStart).toBe(ends[0]! + 1);
    expect(checkStream(sent.slice(0, ends[0]! + 1), {})).toEqual([]);
    expect(completedResponse(sent[ends[1]!]!).output.at(-1)!.content![0]!.text).toBe('You said: "second".');
  });

  test('store: false responses continue on the same session only', async () => {
    const first = open();
    first.create({ input: 'My name is Ada.', store: false });
    await first.session.idle();
    const id = completedResponse(terminal(first.sent)[0]!).id;
    expect(await first.store.get(id, 'open')).toBeUndefined();
    first.create({ input: 'What is my name?', store: false, previous_response_id: id });
    await first.session.idle();
    expect(completedResponse(terminal(first.sent)[1]!).output.at(-1)!.content![0]!.text).toBe('Your name is Ada.');
  });

  test('the local cache evicts the least recently used response, not the oldest', async () => {
    const { sent, session, create } = open({ localCacheSize: 2 });
    const turn = async (body: Record<string, unknown>) => {
      const before = sent.length;
      create({ store: false, ...body });
      await session.idle();
      return sent.slice(before).at(-1)!;
    };
    const a = completedResponse(await turn({ input: 'My name is Ada.' })).id;
    const b = completedResponse(await turn({ input: 'My name is Bob.' })).id;
    // Using a makes b the least recently used; the continuation itself is a third entry, which evicts b.
    const fromA = await turn({ input: 'What is my name?', previous_response_id: a });
    expect(fromA.type).toBe('response.completed');
    expect(await turn({ input: 'again', previous_response_id: a })).toMatchObject({ type: 'response.completed' });
    expect(await turn({ input: 'again', previous_response_id: b })).toMatchObject({
      type: 'error',
      status: 404,
      error: { code: 'previous_response_not_found' },
    });
  });

  test('connections share one byte budget for their local state; a response larger than it is not kept', async () => {
    // About 16 KB a response (its input as JSON): the budget holds one of them, not two.
    const service = createResponsesService({ limits: { maxWebSocketStateBytes: 25_000 } });
    const noHeaders = { header: () => null };
    const connect = () => {
      const fake = fakeSocket();
      const session = service.openSession(fake.socket, noHeaders);
      const turn = async (body: Record<string, unknown>) => {
        const before = fake.sent.length;
        session.receive(JSON.stringify({ type: 'response.create', store: false, ...body }));
        await session.idle();
        return fake.sent.slice(before).at(-1)!;
      };
      return { session, turn };
    };
    const first = connect();
    const second = connect();
    const words = `My name is Ada. ${'and so on '.repeat(1_500)}`;
    const a = completedResponse(await first.turn({ input: words })).id;
    expect(await first.turn({ input: 'What is my name?', previous_response_id: a })).toMatchObject({
      type: 'response.completed',
    });
    // The other connection's response takes the budget: the first one's are evicted.
    expect((await second.turn({ input: words })).type).toBe('response.completed');
    expect(await first.turn({ input: 'again', previous_response_id: a })).toMatchObject({
      type: 'error',
      status: 404,
      error: { code: 'previous_response_not_found' },
    });
    // Larger than the whole budget: the turn completes, and it is simply not kept for continuation.
    const huge = await first.turn({ input: 'x '.repeat(30_000) });
    expect(huge.type).toBe('response.completed');
    expect(await first.turn({ input: 'on', previous_response_id: completedResponse(huge).id })).toMatchObject({
      type: 'error',
      error: { code: 'previous_response_not_found' },
    });
    first.session.closed();
    second.session.closed();
  });

  test('bad messages get error envelopes and the session stays usable', async () => {
    const { sent, session, create } = open();
    session.receive('not json');
    session.receive(JSON.stringify({ type: 'response.cancel' }));
    create({ input: 'still here' });
    await session.idle();
    expect(sent.slice(0, 2)).toMatchObject([
      { type: 'error', status: 400, error: { code: 'invalid_json' } },
      { type: 'error', status: 400, error: { code: 'unsupported_event_type', param: 'type' } },
    ]);
    expect(sent.at(-1)!.type).toBe('response.completed');
  });

  test('an unsupported OpenResponses-Version gets an error envelope and close 1008', async () => {
    const { sent, closes, session, create } = open({ version: '1999-01-01' });
    create({ input: 'ignored' });
    await session.idle();
    expect(sent).toMatchObject([{ type: 'error', status: 400, error: { code: 'unsupported_version' } }]);
    expect(closes).toEqual([{ code: 1008, reason: 'unsupported version' }]);
  });

  test('closing the socket cancels the running turn and drops the queued ones', async () => {
    const { sent, session, store, create } = open();
    create({ input: 'Tell me a long story [long] [slow]' });
    create({ input: 'queued, never run' });
    while (!sent.some((m) => m.type === 'response.output_text.delta')) await new Promise((r) => setTimeout(r, 5));
    const id = completedResponse(sent[0]!).id;
    session.closed();
    const sentAtClose = sent.length;
    await session.idle();
    // Nothing more is sent to a closed socket, and the second turn never started.
    expect(sent.length).toBe(sentAtClose);
    expect(sent.filter((m) => m.type === 'response.created')).toHaveLength(1);
    const stored = await store.get(id, 'open');
    expect(stored?.response.status).toBe('failed');
    expect(stored?.response.error).toMatchObject({ code: 'cancelled' });
    // A message after close is ignored.
    create({ input: 'after close' });
    await session.idle();
    expect(sent.length).toBe(sentAtClose);
  });

  test('the connection limit waits for the running turn, then closes with websocket_connection_limit_reached', async () => {
    const { sent, closes, session, create } = open({ connectionLimitMs: 50 });
    create({ input: 'A few words [slow]' });
    await new Promise((r) => setTimeout(r, 80));
    await session.idle();
    const limitError = sent.findIndex((m) => m.type === 'error');
    expect(sent[limitError]).toMatchObject({ error: { code: 'websocket_connection_limit_reached' } });
    expect(limitError).toBeGreaterThan(sent.findIndex((m) => m.type === 'response.completed'));
    expect(closes).toEqual([{ code: 1000, reason: 'connection limit reached' }]);
    session.closed();
  });

  test('a session holds a connection slot while open: one past the cap gets a 429 envelope and close 1013', async () => {
    // Two upgrades racing for the last slot both pass checkUpgrade; the session is where the count is kept.
    const service = createResponsesService({ limits: { maxWebSocketConnectionsPerKey: 1 } });
    const noHeaders = { header: () => null };
    const first = fakeSocket();
    const firstSession = service.openSession(first.socket, noHeaders);
    const second = fakeSocket();
    const secondSession = service.openSession(second.socket, noHeaders);
    await firstSession.idle();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(first.closes).toEqual([]);
    expect(second.sent).toEqual([
      {
        type: 'error',
        status: 429,
        error: expect.objectContaining({ type: 'too_many_requests', code: 'too_many_connections', param: null }),
      },
    ]);
    expect(second.closes).toEqual([{ code: 1013, reason: 'too many connections' }]);
    secondSession.closed();
    expect(await service.checkUpgrade({ path: '/v1/responses', header: () => null })).toMatchObject({ status: 429 });
    firstSession.closed();
    expect(await service.checkUpgrade({ path: '/v1/responses', header: () => null })).toBeUndefined();
  });
});
