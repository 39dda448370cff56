// The client's error model against the real reference server on 127.0.0.1: one class per status as in
// openai-node (with status, code, param and the server's request id), 429 with Retry-After exhausted,
// per-request timeouts, the caller's abort, connection refused; every transport error keeps its cause.
import { createServer, type Socket } from 'node:net';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { injectFaults } from '@openresponses/server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  createClient,
  InternalServerError,
  NotFoundError,
  type OpenResponsesError,
  RateLimitError,
} from '../src/index.js';

const KEY = 'errors-test-key';
let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ apiKeys: [KEY], middleware: [injectFaults()], warn: () => {} });
});
afterAll(() => server.close());

const clientFor = (options: { apiKey?: string; maxRetries?: number; timeout?: number } = {}) =>
  createClient({ baseURL: `${server.url}/v1`, apiKey: KEY, retryBaseMs: 5, maxRetries: 0, ...options });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as OpenResponsesError,
  );

describe('API errors by status', () => {
  test('400, 401, 404 and 500 are their own classes carrying status, code, param and the request id', async () => {
    const bad = await failure(clientFor().responses.create({ input: 'x', tools: 'none' } as never));
    expect(bad).toBeInstanceOf(BadRequestError);
    expect(bad).toBeInstanceOf(APIError);
    expect(bad).toMatchObject({ status: 400, type: 'invalid_request', param: 'tools' });
    expect(bad.requestId).toMatch(/^req_/);

    expect(await failure(clientFor({ apiKey: 'wrong' }).responses.create({ input: 'x' }))).toBeInstanceOf(
      AuthenticationError,
    );
    const missing = await failure(clientFor().responses.retrieve('resp_missing'));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'response_not_found', param: 'response_id' });
    const crashed = await failure(
      clientFor().responses.create({ input: 'x' }, { headers: { 'openresponses-test-fail': '503;times=1;key=s' } }),
    );
    expect(crashed).toBeInstanceOf(InternalServerError);
    expect(crashed.status).toBe(503);
  });

  test('a 429 that outlasts the retries is a RateLimitError with its Retry-After', async () => {
    const started = Date.now();
    const limited = await failure(
      clientFor({ maxRetries: 1 }).responses.create(
        { input: 'x' },
        { headers: { 'openresponses-test-fail': '429;times=2;retry-after=0.2;key=r' } },
      ),
    );
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.headers?.get('retry-after')).toBe('0.2');
    // One retry, after the server's Retry-After.
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe('transport errors', () => {
  test('a per-request timeout is an APIConnectionTimeoutError, retried like a lost connection', async () => {
    const { baseURL, connections, close } = await silentPeer();
    try {
      const started = Date.now();
      const timedOut = await failure(
        createClient({ baseURL, maxRetries: 1, retryBaseMs: 5 }).responses.create({ input: 'x' }, { timeout: 100 }),
      );
      expect(timedOut).toBeInstanceOf(APIConnectionTimeoutError);
      expect(timedOut).toBeInstanceOf(APIConnectionError);
      expect(timedOut.cause).toBeDefined();
      // Retried: a second attempt opened its own connection (fetch may open a spare one too).
      expect(connections.length).toBeGreaterThanOrEqual(2);
      expect(Date.now() - started).toBeLessThan(3000);
      // The client-wide default applies when the request sets none.
      await expect(
        createClient({ baseURL, maxRetries: 0, timeout: 100 }).responses.create({ input: 'x' }),
      ).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    } finally {
      await close();
    }
  });

  test("the caller's abort is an APIUserAbortError with the reason as cause, and is not retried", async () => {
    const { baseURL, connections, close } = await silentPeer();
    try {
      const controller = new AbortController();
      const reason = new Error('user gave up');
      setTimeout(() => controller.abort(reason), 50);
      const aborted = await failure(
        createClient({ baseURL, maxRetries: 3, retryBaseMs: 5 }).responses.create(
          { input: 'x' },
          { signal: controller.signal },
        ),
      );
      expect(aborted).toBeInstanceOf(APIUserAbortError);
      expect(aborted.cause).toBe(reason);
      expect(aborted.retryable).toBe(false);
      expect(connections.length).toBeGreaterThanOrEqual(1);
    } finally {
      await close();
    }
  });

  test('a request that settles removes its listener from the caller signal', async () => {
    const controller = new AbortController();
    const added: unknown[] = [];
    const removed: unknown[] = [];
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: never, options?: never) => {
      added.push(listener);
      add(type as 'abort', listener, options);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: never) => {
      removed.push(listener);
      remove(type as 'abort', listener);
    }) as typeof signal.removeEventListener;
    await clientFor().responses.create({ input: 'hello' }, { signal });
    const stream = await clientFor().responses.stream({ input: 'hello' }, { signal });
    await stream.finalResponse();
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((listener) => removed.includes(listener))).toBe(true);
  });

  test('connection refused is an APIConnectionError whose cause is the fetch failure', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const refused = await failure(
      createClient({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1, retryBaseMs: 5 }).responses.create({
        input: 'x',
      }),
    );
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect(refused).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect(refused.status).toBe(0);
    expect(refused.cause).toBeInstanceOf(Error);
    // The reason is in the message, not only "fetch failed".
    expect(refused.message).toBe(
      `Request to http://127.0.0.1:${port}/v1/responses failed: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
  });
});

describe('options', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['OPENRESPONSES_BASE_URL', 'OPENRESPONSES_API_KEY']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  test('createClient() with no options and no OPENRESPONSES_BASE_URL says what it needs', () => {
    delete process.env.OPENRESPONSES_BASE_URL;
    expect(() => createClient()).toThrow(
      'createClient needs the API root: pass { baseURL: "http://127.0.0.1:8080/v1" } or set OPENRESPONSES_BASE_URL.',
    );
    expect(() => createClient({ baseURL: 'localhost:8080/v1' })).toThrow(
      'createClient: baseURL "localhost:8080/v1" is not an http(s) URL such as http://127.0.0.1:8080/v1.',
    );
    process.env.OPENRESPONSES_BASE_URL = '  ';
    expect(() => createClient()).toThrow(/needs the API root/);
  });

  test('OPENRESPONSES_BASE_URL and OPENRESPONSES_API_KEY stand in for missing options; options win', async () => {
    process.env.OPENRESPONSES_BASE_URL = `${server.url}/v1`;
    process.env.OPENRESPONSES_API_KEY = KEY;
    const response = await createClient().responses.create({ input: 'from the environment' });
    expect(response.status).toBe('completed');
    expect(createClient().options.baseURL).toBe(`${server.url}/v1`);
    const refused = await failure(
      createClient({ apiKey: 'wrong-key', maxRetries: 0 }).responses.create({ input: 'x' }),
    );
    expect(refused).toBeInstanceOf(AuthenticationError);
  });
});

/** A peer that accepts connections and never answers (a hung upstream or proxy). */
async function silentPeer() {
  const connections: Socket[] = [];
  const silent = createServer((socket) => connections.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`,
    connections,
    close: async () => {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    },
  };
}
