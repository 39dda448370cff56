// Admission and HTTP surface details on the real server: per-key rate limiting (429 + Retry-After),
// in-flight turn limits, the Origin check for browser pages, HEAD where GET is served, Allow on 405,
// and input_items paging (limit, order, after, has_more).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer } from './harness.js';

type ErrorBody = { error: { type: string; code: string; param: string | null; message: string } };

async function expectError(response: Response, status: number, type: string, code: string) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as ErrorBody;
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error).toMatchObject({ type, code });
  return body;
}

describe('rate limiting and in-flight turns', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({
      limits: { rateLimitPerSecond: 0.2, rateLimitBurst: 3 },
    });
  });
  afterAll(() => server.close());

  test('a key over its rate gets 429 rate_limit_exceeded with Retry-After; /healthz is never limited', async () => {
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.url}/v1/responses/resp_none`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
      else await response.text();
    }
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectError(limited!, 429, 'too_many_requests', 'rate_limit_exceeded');
    for (let i = 0; i < 5; i++) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('turns in flight per key', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({ limits: { maxTurnsInFlightPerKey: 1 } });
  });
  afterAll(() => server.close());

  test('a second turn while the first streams is a 429; once it ended, turns are admitted again', async () => {
    const first = await post(server, '/v1/responses', { input: 'go [slow]', stream: true });
    expect(first.status).toBe(200);
    const busy = await post(server, '/v1/responses', { input: 'me too' });
    expect(busy.headers.get('retry-after')).toBe('1');
    await expectError(busy, 429, 'too_many_requests', 'too_many_concurrent_requests');
    await first.text();
    expect((await post(server, '/v1/responses', { input: 'now' })).status).toBe(200);
  });
});

const OTHER_KEY = 'admission-other-key-0123456789';

/** A WebSocket on the server's /v1/responses with a key, once open. */
async function connect(server: RunningServer, key = API_KEY): Promise<WebSocket> {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return socket;
}

/** The next message of the given types on a socket, parsed. */
function next(socket: WebSocket, ...types: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if (!types.includes(String(message.type))) return;
      socket.off('message', onMessage);
      resolve(message);
    };
    socket.on('message', onMessage);
  });
}

/** The HTTP answer to an upgrade the server refuses: status, Retry-After and the parsed body. */
function refusedUpgrade(server: RunningServer, key = API_KEY) {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return new Promise<{ status: number; retryAfter: string | undefined; body: ErrorBody }>((resolve, reject) => {
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('error', () => {});
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          retryAfter: response.headers['retry-after'] as string | undefined,
          body: JSON.parse(text) as ErrorBody,
        }),
      );
    });
  });
}

/** Posts until the answer is not a 429 (a slot is given back once the cancelled turn has wound down). */
async function postOnceAdmitted(server: RunningServer, body: unknown): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await post(server, '/v1/responses', body);
    if (response.status !== 429 || attempt === 50) return response;
    await response.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('WebSocket turns and connections count like HTTP requests', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({
      apiKeys: [API_KEY, OTHER_KEY],
      limits: { maxTurnsInFlightPerKey: 1, maxWebSocketConnectionsPerKey: 2, maxWebSocketConnections: 3 },
    });
  });
  afterAll(() => server.close());

  test("a running WebSocket turn holds its key's in-flight slot: an HTTP turn is a 429 until the socket closes", async () => {
    const socket = await connect(server);
    const created = next(socket, 'response.created', 'error');
    socket.send(JSON.stringify({ type: 'response.create', input: 'go on [slow] [long]' }));
    expect((await created).type).toBe('response.created');
    const busy = await post(server, '/v1/responses', { input: 'me too' });
    expect(busy.headers.get('retry-after')).toBe('1');
    await expectError(busy, 429, 'too_many_requests', 'too_many_concurrent_requests');
    // Another key has slots of its own.
    const other = await post(server, '/v1/responses', { input: 'hi' }, { authorization: `Bearer ${OTHER_KEY}` });
    expect(other.status).toBe(200);
    await other.text();
    // Closing the socket cancels the turn and gives the slot back.
    socket.close();
    expect((await postOnceAdmitted(server, { input: 'now' })).status).toBe(200);
  });

  test('while an HTTP stream runs, a WebSocket turn gets the 429 error event, and the socket stays usable', async () => {
    const controller = new AbortController();
    const streaming = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ input: 'go on [slow] [long]', stream: true }),
      signal: controller.signal,
    });
    expect(streaming.status).toBe(200);
    const socket = await connect(server);
    const refused = next(socket, 'error', 'response.created');
    socket.send(JSON.stringify({ type: 'response.create', input: 'me too' }));
    const envelope = await refused;
    expect(envelope).toMatchObject({
      type: 'error',
      status: 429,
      error: { type: 'too_many_requests', code: 'too_many_concurrent_requests', param: null },
    });
    expect(Object.keys(envelope.error as object).sort()).toEqual(['code', 'message', 'param', 'type']);
    controller.abort();
    await streaming.text().catch(() => {});
    // Once the stream has ended, a turn on the same socket runs.
    for (let attempt = 0; ; attempt++) {
      const ended = next(socket, 'response.completed', 'error');
      socket.send(JSON.stringify({ type: 'response.create', input: 'now' }));
      const last = await ended;
      if (last.type === 'response.completed' || attempt === 50) {
        expect(last.type).toBe('response.completed');
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.close();
  });

  test("open connections are capped per key and overall; a refused upgrade is a 429 with the spec's body", async () => {
    const first = await connect(server);
    const second = await connect(server);
    const perKey = await refusedUpgrade(server);
    expect(perKey.status).toBe(429);
    expect(perKey.retryAfter).toBe('1');
    expect(perKey.body.error).toMatchObject({ type: 'too_many_requests', code: 'too_many_connections', param: null });
    const third = await connect(server, OTHER_KEY);
    const overall = await refusedUpgrade(server, OTHER_KEY);
    expect(overall.status).toBe(429);
    expect(overall.body.error).toMatchObject({ type: 'too_many_requests', code: 'server_busy' });
    // A closed connection gives its slot back.
    const closed = new Promise((resolve) => first.once('close', resolve));
    first.close();
    await closed;
    let again: WebSocket | undefined;
    for (let attempt = 0; !again && attempt < 50; attempt++)
      again = await connect(server).catch(() => new Promise<undefined>((resolve) => setTimeout(resolve, 20)));
    expect(again?.readyState).toBe(WebSocket.OPEN);
    for (const socket of [second, third, again!]) socket.close();
  });
});

describe('HTTP surface', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('HEAD answers where GET does, without a body', async () => {
    const health = await fetch(`${server.url}/healthz`, { method: 'HEAD' });
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('');
    const created = (await (await post(server, '/v1/responses', { input: 'hi' })).json()) as { id: string };
    const head = await fetch(`${server.url}/v1/responses/${created.id}`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/application\/json/);
  });

  test('405 names the allowed methods in Allow', async () => {
    const response = await fetch(`${server.url}/v1/responses`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(response.headers.get('allow')).toBe('POST');
    await expectError(response, 405, 'invalid_request', 'method_not_allowed');
    const stored = await fetch(`${server.url}/v1/responses/resp_x`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(stored.headers.get('allow')).toBe('GET, DELETE, HEAD');
    await expectError(stored, 405, 'invalid_request', 'method_not_allowed');
  });

  test("a page on another origin cannot post a form; the server's own origin can", async () => {
    const form = (origin: string) =>
      fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Bearer ${API_KEY}`,
          origin,
        },
        body: 'input=hello',
      });
    await expectError(await form('https://evil.example'), 403, 'invalid_request', 'origin_not_allowed');
    expect((await form(server.url)).status).toBe(200);
  });

  test('input_items pages with limit, order and after, and says whether more follow', async () => {
    const input = Array.from({ length: 5 }, (_, i) => ({ role: 'user', content: `item ${i}` }));
    const { id } = (await (await post(server, '/v1/responses', { input })).json()) as { id: string };
    const page = async (query: string) => {
      const response = await fetch(`${server.url}/v1/responses/${id}/input_items?${query}`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      return (await response.json()) as {
        data: Array<{ id: string; content: Array<{ text: string }> }>;
        has_more: boolean;
        first_id: string | null;
        last_id: string | null;
      };
    };
    const texts = (p: Awaited<ReturnType<typeof page>>) => p.data.map((item) => item.content[0]!.text);
    const first = await page('limit=2');
    expect(texts(first)).toEqual(['item 0', 'item 1']);
    expect(first.has_more).toBe(true);
    const second = await page(`limit=2&after=${first.last_id}`);
    expect(texts(second)).toEqual(['item 2', 'item 3']);
    const last = await page(`limit=2&after=${second.last_id}`);
    expect(texts(last)).toEqual(['item 4']);
    expect(last.has_more).toBe(false);
    expect(texts(await page('order=desc&limit=3'))).toEqual(['item 4', 'item 3', 'item 2']);
    expect(texts(await page(''))).toHaveLength(5);
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['order=sideways', 'order'],
      ['after=msg_nope', 'after'],
    ] as const) {
      const response = await fetch(`${server.url}/v1/responses/${id}/input_items?${query}`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      const body = await expectError(response, 400, 'invalid_request', 'invalid_value');
      expect(body.error.param).toBe(param);
    }
  });
});
