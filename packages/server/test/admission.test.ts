// Admission and HTTP surface details on the real server: per-key rate limiting (429 + Retry-After),
// in-flight turn limits, the Origin check for browser pages, HEAD where GET is served, Allow on 405,
// and input_items paging (limit, order, after, has_more).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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
