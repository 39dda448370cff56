// The bounded upstream reader (src/models/upstream-call.ts) is one for every provider family and every fetch:
// the Anthropic Messages family here, in front of the hostile upstream speaking that dialect, through
// `nodeFetch` and through the global fetch (web streams, as on Workers). The Chat Completions family is proven
// against the real CLI process in test/hostile-upstream.test.ts.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { AnthropicMessagesProvider } from '../src/models/anthropic-messages/index.js';
import type { UpstreamFetch } from '../src/models/upstream.js';
import { UpstreamCall } from '../src/models/upstream-call.js';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { Redactor } from '../src/redaction.js';
import { nodeFetch, type RunningServer } from '../src/node/index.js';
import { type HostileExchange, type HostileUpstream, startHostileUpstream } from '../src/testing/index.js';
import { post, startTestServer } from './harness.js';

const LIMITS = {
  maxUpstreamBodyBytes: 256 * 1024,
  maxUpstreamEventBytes: 64 * 1024,
  upstreamIdleMs: 500,
  upstreamDeadlineMs: 1_500,
  maxUpstreamModels: 3,
};

const sse = (exchange: HostileExchange) =>
  exchange.response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const START = [
  event('message_start', {
    message: {
      id: 'msg_h',
      type: 'message',
      role: 'assistant',
      model: 'claude-hostile',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 0 },
    },
  }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
].join('');
const delta = event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'drip ' } });

/** Messages-dialect versions of the hostile behaviours. */
const ANTHROPIC_BEHAVIOURS = {
  'a-endless-line': {
    description: 'a streamed data line that never ends',
    async serve(exchange: HostileExchange) {
      sse(exchange);
      if (!(await exchange.write(`${START}event: content_block_delta\ndata: {"type":"content_block_delta","x":"`)))
        return;
      const block = 'x'.repeat(16 * 1024);
      while (await exchange.write(block));
    },
  },
  'a-pings-forever': {
    description: 'comments every intervalMs after the start, never another event',
    async serve(exchange: HostileExchange) {
      sse(exchange);
      if (!(await exchange.write(START))) return;
      while ((await exchange.write(': keep-alive\n\n')) && (await exchange.pause(exchange.options.intervalMs)));
    },
  },
  'a-dripping-deltas': {
    description: 'a text delta every intervalMs, forever',
    async serve(exchange: HostileExchange) {
      sse(exchange);
      if (!(await exchange.write(START))) return;
      while ((await exchange.write(delta)) && (await exchange.pause(exchange.options.intervalMs)));
    },
  },
  'a-huge-message': {
    description: 'a whole message of `bytes` bytes (JSON) and a model list of 10 names',
    async serve(exchange: HostileExchange) {
      exchange.response.writeHead(200, { 'content-type': 'application/json' });
      if (exchange.endpoint === '/models') {
        const data = Array.from({ length: 10 }, (_, i) => ({ id: `claude-${i}`, type: 'model' }));
        exchange.response.end(JSON.stringify({ data, has_more: false }));
        return;
      }
      const head = '{"id":"msg_h","type":"message","role":"assistant","content":[{"type":"text","text":"';
      if (!(await exchange.write(head))) return;
      const block = 'x'.repeat(16 * 1024);
      for (let written = 0; written < exchange.options.bytes; written += block.length)
        if (!(await exchange.write(block))) return;
      await exchange.write('"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}');
      exchange.response.end();
    },
  },
};

let upstream: HostileUpstream;
beforeAll(async () => {
  upstream = await startHostileUpstream({
    bytes: 1024 * 1024,
    maxBytes: 64 * 1024 * 1024,
    intervalMs: 20,
    behaviours: ANTHROPIC_BEHAVIOURS,
  });
});
afterAll(() => upstream.close());

const fetches: Array<[string, UpstreamFetch]> = [
  ['nodeFetch', nodeFetch],
  ['the global fetch', (url, init) => globalThis.fetch(url, init)],
];

describe.each(fetches)('the Anthropic family through %s', (_, fetch) => {
  let server: RunningServer;
  const providers = new Map<string, AnthropicMessagesProvider>();
  beforeAll(async () => {
    for (const name of Object.keys(ANTHROPIC_BEHAVIOURS))
      providers.set(
        name,
        new AnthropicMessagesProvider({
          baseUrl: upstream.urlFor(name),
          apiKey: 'sk-ant-hostile-0123456789',
          route: { model: name },
          limits: LIMITS,
          fetch,
        }),
      );
    server = await startTestServer({ providers: [...providers.values()] });
  });
  afterAll(() => server.close());

  /** The error the client got: a JSON error body, or a failed stream's `error` event. */
  async function errorOf(model: string, stream: boolean) {
    const started = performance.now();
    const response = await post(server, '/v1/responses', { model, input: 'hi', stream });
    const text = await response.text();
    const ms = performance.now() - started;
    await upstream.waitForConnections(0);
    if (!stream || response.status !== 200) return { status: response.status, ms, ...JSON.parse(text) };
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; error?: unknown });
    return { status: 200, ms, error: events.find((e) => e.type === 'error')?.error, last: events.at(-1)?.type };
  }

  test('a stream line without end: upstream_event_too_large, the connection dropped', async () => {
    const got = await errorOf('a-endless-line', true);
    expect(got.error).toMatchObject({ type: 'model_error', code: 'upstream_event_too_large' });
    expect(upstream.served.at(-1)!.closedByGateway).toBe(true);
    // The sockets' buffers hold a few MiB on loopback; read whole, the line would run to the upstream's 64 MiB guard.
    expect(upstream.served.at(-1)!.bytesWritten).toBeLessThan(16 * 1024 * 1024);
  });

  test('keep-alive comments do not restart the idle timer: upstream_timeout', async () => {
    const got = await errorOf('a-pings-forever', true);
    expect(got.error).toMatchObject({ type: 'server_error', code: 'upstream_timeout' });
    expect(got.ms, 'ten times the idle time').toBeLessThan(10 * LIMITS.upstreamIdleMs);
    expect(upstream.served.at(-1)!.closedByGateway).toBe(true);
  });

  test('events forever stop at the deadline: upstream_deadline_exceeded after the text so far', async () => {
    const got = await errorOf('a-dripping-deltas', true);
    expect([got.status, got.last]).toEqual([200, 'response.failed']);
    expect(got.error).toMatchObject({ type: 'server_error', code: 'upstream_deadline_exceeded' });
    expect(got.ms).toBeGreaterThanOrEqual(LIMITS.upstreamDeadlineMs - 50);
    expect(got.ms, 'ten times the deadline').toBeLessThan(10 * LIMITS.upstreamDeadlineMs);
    expect(upstream.served.at(-1)!.closedByGateway).toBe(true);
  });

  test('a JSON answer over the body budget: upstream_response_too_large', async () => {
    const got = await errorOf('a-huge-message', false);
    expect(got).toMatchObject({ status: 500, error: { type: 'model_error', code: 'upstream_response_too_large' } });
  });

  test('the model list: at most maxUpstreamModels names, asked once for every listing', async () => {
    const provider = new AnthropicMessagesProvider({
      baseUrl: upstream.urlFor('a-huge-message'),
      limits: LIMITS,
      fetch,
    });
    const asked = () => upstream.served.filter((s) => s.endpoint === '/models').length;
    const before = asked();
    const [first, second] = await Promise.all([provider.listModels(), provider.listModels()]);
    expect(first).toEqual(['claude-0', 'claude-1', 'claude-2']);
    expect(second).toEqual(first);
    expect(await provider.listModels()).toEqual(first);
    expect(asked() - before).toBe(1);
  });
});

describe('nodeFetch', () => {
  test('text() reads at most maxBodyBytes; past it the answer is dropped and text() fails', async () => {
    const response = await nodeFetch(`${upstream.urlFor('a-huge-message')}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      maxBodyBytes: 64 * 1024,
    });
    await expect(response.text()).rejects.toThrow('larger than 65536 bytes');
    await upstream.waitForConnections(0);
  });

  test("a body reader's cancel() drops the connection", async () => {
    const response = await nodeFetch(`${upstream.urlFor('a-pings-forever')}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel!();
    await upstream.waitForConnections(0);
    expect(upstream.served.at(-1)!.closedByGateway).toBe(true);
  });

  /** Serves `answer` on a fresh local `node:http` server for the length of `use`. */
  async function withServer(
    answer: (response: import('node:http').ServerResponse) => void,
    use: (url: string) => Promise<void>,
  ) {
    const server = createHttpServer((request, response) => {
      request.resume();
      request.on('end', () => answer(response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  test('the events of one upstream write come in one read(), not one read per chunk', async () => {
    const events = Array.from({ length: 20 }, (_, i) => `data: {"n":${i}}\n\n`);
    await withServer(
      (response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        // Twenty chunks of the chunked encoding, written in one tick: one packet.
        for (const event of events) response.write(event);
        setTimeout(() => response.end(), 50);
      },
      async (url) => {
        const reader = (await nodeFetch(url, { method: 'POST', headers: {}, body: '{}' })).body!.getReader();
        const first = await reader.read();
        expect(Buffer.from(first.value!).toString('utf8')).toBe(events.join(''));
        expect((await reader.read()).done).toBe(true);
      },
    );
  });

  test('a reader that does not read holds a bounded part of the body (backpressure), and all of it comes later', async () => {
    const block = 'x'.repeat(16 * 1024);
    const blocks = 64; // 1 MiB
    await withServer(
      async (response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        for (let i = 0; i < blocks; i++)
          if (!response.write(block)) await new Promise((resolve) => response.once('drain', resolve));
        response.end();
      },
      async (url) => {
        const reader = (await nodeFetch(url, { method: 'POST', headers: {}, body: '{}' })).body!.getReader();
        await new Promise((resolve) => setTimeout(resolve, 300));
        let bytes = 0;
        let largest = 0;
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          bytes += next.value.byteLength;
          largest = Math.max(largest, next.value.byteLength);
        }
        expect(bytes).toBe(blocks * block.length);
        // Read ahead: at most 64 KiB past what was asked, plus the chunk that crossed it.
        expect(largest).toBeLessThanOrEqual(128 * 1024);
      },
    );
  });

  test("the request head: the headers once each (last one of a name wins), host, the body's content-length, keep-alive", async () => {
    const heads: string[][] = [];
    const server = createHttpServer((request, response) => {
      heads.push(request.rawHeaders);
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}/v1/chat/completions`;
    const headers = {
      'Content-Type': 'text/plain',
      'content-type': 'application/json',
      'Content-Length': '999',
      'x-key': 'k',
    };
    try {
      for (const body of ['{"a":"é"}', '{"b":"ééé"}'])
        expect(await (await nodeFetch(url, { method: 'POST', headers, body })).text()).toBe('ok');
      expect(await (await nodeFetch(url, { headers: { Host: 'upstream.example' } })).text()).toBe('ok');
      const named = (head: string[]) =>
        Object.fromEntries(
          Array.from({ length: head.length / 2 }, (_, at) => [head[2 * at]!.toLowerCase(), head[2 * at + 1]]),
        );
      expect(heads.map((head) => head.length / 2)).toEqual([5, 5, 2]);
      expect(named(heads[0]!)).toEqual({
        host: `127.0.0.1:${port}`,
        'content-type': 'application/json',
        'x-key': 'k',
        'content-length': '10',
        connection: 'keep-alive',
      });
      expect(named(heads[1]!)['content-length']).toBe('14');
      expect(named(heads[2]!)).toEqual({ host: 'upstream.example', connection: 'keep-alive' });
      // A value Node refuses to send fails the call, before anything is sent.
      await expect(nodeFetch(url, { headers: { 'x-key': 'a\nb' } })).rejects.toThrow(/Invalid character/);
      expect(heads).toHaveLength(3);
    } finally {
      server.close();
    }
  });

  test("an UpstreamCall reads a whole answer through nodeFetch's own read: its text, a bodiless 204 at once, a cut body upstream_response_cut", async () => {
    const server = createHttpServer((request, response) => {
      request.resume();
      if (request.url === '/empty') response.writeHead(204).end();
      else if (request.url === '/cut') {
        response.writeHead(200, { 'content-length': '100' });
        response.write('{"partial":');
        setTimeout(() => response.destroy(), 20);
      } else response.end(JSON.stringify({ text: 'é'.repeat(40_000) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const read = async (path: string) => {
      const call = new UpstreamCall('POST', {}, '{}', { ...DEFAULT_LIMITS, ...LIMITS }, new Redactor(), {});
      try {
        return await call.text(await call.send(nodeFetch, `${base}${path}`));
      } finally {
        call.close();
      }
    };
    try {
      expect(JSON.parse(await read('/whole'))).toEqual({ text: 'é'.repeat(40_000) });
      const started = performance.now();
      expect(await read('/empty')).toBe('');
      expect(performance.now() - started).toBeLessThan(LIMITS.upstreamIdleMs);
      await expect(read('/cut')).rejects.toMatchObject({ type: 'model_error', code: 'upstream_response_cut' });
    } finally {
      server.close();
    }
  });

  test('an UpstreamCall arms one timer for its idle bound and deadline, due at the nearer, and clears it at close', () => {
    const armed = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    try {
      for (const [idle, deadline] of [
        [500, 1_500],
        [2_000, 1_500],
      ] as const) {
        armed.mockClear();
        cleared.mockClear();
        const limits = { ...DEFAULT_LIMITS, ...LIMITS, upstreamIdleMs: idle, upstreamDeadlineMs: deadline };
        const call = new UpstreamCall('POST', {}, '{}', limits, new Redactor(), {});
        call.close();
        expect(armed.mock.calls.map((args) => args[1])).toEqual([Math.min(idle, deadline)]);
        expect(cleared).toHaveBeenCalledTimes(1);
      }
    } finally {
      armed.mockRestore();
      cleared.mockRestore();
    }
  });

  test('a pooled connection the upstream closed while idle is retried once on a fresh one', async () => {
    // Each connection answers its first request (keep-alive) and drops the next one unanswered, as an upstream
    // does when its idle timeout closes a pooled connection just as a request is sent on it.
    const requestsPerConnection: number[] = [];
    const server = createServer((socket) => {
      const index = requestsPerConnection.push(0) - 1;
      socket.on('data', (bytes) => {
        if (!bytes.includes('\r\n\r\n')) return;
        requestsPerConnection[index]! += 1;
        if (requestsPerConnection[index] === 1)
          socket.write(
            'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok',
          );
        else socket.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`;
    try {
      expect(await (await nodeFetch(url, { headers: {} })).text()).toBe('ok');
      // The second call goes out on the pooled connection, is dropped, and is sent again on a new one.
      expect(await (await nodeFetch(url, { headers: {} })).text()).toBe('ok');
      expect(requestsPerConnection).toEqual([2, 1]);
    } finally {
      server.close();
    }
  });
});
