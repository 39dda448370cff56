// Routes with several upstreams (any families) behind the real gateway: a routing file lists them, scripted
// upstreams on 127.0.0.1 fail in each way that moves to the next one (429, 503, a refused connection, a
// hang before the first byte), the openai SDK drives the gateway and reads which upstream answered from the
// `openresponses-upstream` header. A failure after the first byte is not retried; a failing upstream's
// circuit opens; one family's sealed reasoning never reaches another family.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { gatewayProviders } from '../src/node/index.js';
import {
  anthropicMessagesWire,
  chatCompletionsWire,
  type ScriptedUpstream,
  startScriptedUpstream,
} from '../src/testing/index.js';
import { API_KEY, startTestServer, stream } from './harness.js';

let folder: string;
let chat: ScriptedUpstream;
let claude: ScriptedUpstream;
let refusing: string;
let hanging: Awaited<ReturnType<typeof silentServer>>;
beforeAll(async () => {
  hanging = await silentServer();
  folder = mkdtempSync(path.join(tmpdir(), 'fallback-'));
  chat = await startScriptedUpstream(chatCompletionsWire);
  claude = await startScriptedUpstream(anthropicMessagesWire);
  refusing = await closedPort();
});
afterAll(async () => {
  await chat.close();
  await claude.close();
  await hanging.close();
  rmSync(folder, { recursive: true, force: true });
});
afterEach(() => {
  chat.received.length = 0;
  claude.received.length = 0;
});

/** A URL on 127.0.0.1 where nothing listens: a port that was free a moment ago. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** A server on 127.0.0.1 that takes connections and never answers. */
async function silentServer() {
  const sockets = new Set<import('node:net').Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    get accepted() {
      return accepted;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A gateway whose routing file holds `routes`. */
async function gateway(routes: unknown[]): Promise<{ server: RunningServer; client: OpenAI }> {
  const file = path.join(folder, `routes-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ routes }));
  const server = await startTestServer({
    providers: gatewayProviders({ configPath: file, env: { CHAT_KEY: 'sk-chat-1', CLAUDE_KEY: 'sk-claude-2' } }),
  });
  return { server, client: new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 }) };
}

const primaryChat = () => ({ name: 'primary', url: `${chat.rootUrl}/v1`, apiKeyEnv: 'CHAT_KEY', timeoutMs: 400 });
const backupClaude = () => ({
  name: 'backup',
  type: 'anthropic-messages',
  url: claude.rootUrl,
  apiKeyEnv: 'CLAUDE_KEY',
  upstreamModel: 'claude-sonnet-4-5',
});

describe('a fallback route moves on before the first byte', () => {
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    ({ server, client } = await gateway([
      { model: 'smart', breakerFailures: 100, upstreams: [primaryChat(), backupClaude()] },
      {
        model: 'hanging',
        breakerFailures: 100,
        upstreams: [{ name: 'asleep', url: hanging.url, timeoutMs: 300 }, backupClaude()],
      },
      {
        model: 'refused',
        breakerFailures: 100,
        upstreams: [{ name: 'gone', url: refusing }, backupClaude()],
      },
    ]));
  });
  afterAll(() => server.close());

  const ask = async (model = 'smart') => {
    const { data, response } = await client.responses.create({ model, input: 'hi' }).withResponse();
    return { data, upstream: response.headers.get('openresponses-upstream') };
  };

  test.each([
    ['429s', { kind: 'status', status: 429 }],
    ['503s', { kind: 'status', status: 503 }],
    ['500s', { kind: 'status', status: 500 }],
  ] as const)('the first upstream %s: the second answers, and the header names it', async (_, failure) => {
    chat.script(failure);
    claude.script({ kind: 'text', deltas: ['Hello ', 'from Claude.'] });
    const { data, upstream } = await ask();
    expect(data.output_text).toBe('Hello from Claude.');
    expect(data.model).toBe('smart');
    expect(upstream).toBe('backup');
    expect(chat.received).toHaveLength(1);
    expect(claude.received).toHaveLength(1);
    expect(claude.received[0]!.body.model).toBe('claude-sonnet-4-5');
  });

  test('the first upstream refuses connections: the second answers', async () => {
    claude.script({ kind: 'text', deltas: ['Still here.'] });
    const { data, upstream } = await ask('refused');
    expect(data.output_text).toBe('Still here.');
    expect(upstream).toBe('backup');
  });

  test('the first upstream hangs before its first byte: after its timeout the second answers', async () => {
    claude.script({ kind: 'text', deltas: ['Awake.'] });
    const { data, upstream } = await ask('hanging');
    expect(data.output_text).toBe('Awake.');
    expect(upstream).toBe('backup');
    expect(hanging.accepted).toBeGreaterThan(0);
  });

  test('a healthy first upstream answers, and is named', async () => {
    chat.script({ kind: 'text', deltas: ['First.'] });
    const { data, upstream } = await ask();
    expect(data.output_text).toBe('First.');
    expect(upstream).toBe('primary');
    expect(claude.received).toHaveLength(0);
  });

  test('a short Retry-After is waited out on the same upstream once, which then answers', async () => {
    chat.script({ kind: 'status', status: 429, retryAfter: '0' }, { kind: 'text', deltas: ['After a pause.'] });
    const { data, upstream } = await ask();
    expect(data.output_text).toBe('After a pause.');
    expect(upstream).toBe('primary');
    expect(chat.received).toHaveLength(2);
    expect(claude.received).toHaveLength(0);
  });

  test('when every upstream fails, the client gets the last one’s spec error', async () => {
    chat.script({ kind: 'status', status: 503 });
    claude.script({ kind: 'status', status: 429, retryAfter: '30' });
    const failure = await client.responses.create({ model: 'smart', input: 'hi' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('30');
    expect((failure as { error: unknown }).error).toMatchObject({ type: 'too_many_requests', code: 'rate_limited' });
  });

  test('a failure after the first byte is not retried: the stream ends with the spec error', async () => {
    chat.script({ kind: 'cut', deltas: ['Half'] });
    const { events, response } = await stream(server, { model: 'smart', input: 'hi' });
    expect(response.headers.get('openresponses-upstream')).toBe('primary');
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(1);
    expect(events.at(-2)).toMatchObject({ type: 'error', error: { code: 'upstream_stream_cut' } });
    expect(events.at(-1)).toMatchObject({ type: 'response.failed' });
    expect(claude.received).toHaveLength(0);
  });
});

describe('the circuit breaker', () => {
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    ({ server, client } = await gateway([
      { model: 'smart', breakerFailures: 2, cooldownMs: 60_000, upstreams: [primaryChat(), backupClaude()] },
    ]));
  });
  afterAll(() => server.close());

  test('an upstream failing twice in a row is skipped until its cooldown ends', async () => {
    chat.script({ kind: 'status', status: 503 }, { kind: 'status', status: 503 });
    claude.script(
      { kind: 'text', deltas: ['one'] },
      { kind: 'text', deltas: ['two'] },
      { kind: 'text', deltas: ['three'] },
    );
    for (const expected of ['one', 'two', 'three'])
      expect((await client.responses.create({ model: 'smart', input: 'hi' })).output_text).toBe(expected);
    // The third turn went straight to the backup: the primary saw only the first two.
    expect(chat.received).toHaveLength(2);
    expect(claude.received).toHaveLength(3);
  });
});

describe('sealed reasoning stays with the upstream that made it', () => {
  let server: RunningServer;
  let client: OpenAI;
  beforeAll(async () => {
    ({ server, client } = await gateway([
      {
        model: 'thinker',
        breakerFailures: 100,
        upstreams: [
          { ...backupClaude(), name: 'claude' },
          { name: 'chat', url: `${chat.rootUrl}/v1`, apiKeyEnv: 'CHAT_KEY' },
        ],
      },
    ]));
  });
  afterAll(() => server.close());

  test('a continuation answered by another family goes without it; back on its own upstream it returns byte for byte', async () => {
    claude.script({ kind: 'reasoning', reasoning: 'Think.', opaque: 'sig-0f3a', deltas: ['Thought.'] });
    const first = await client.responses.create({ model: 'thinker', input: 'hi' });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message']);

    claude.script({ kind: 'status', status: 503 });
    chat.script({ kind: 'text', deltas: ['From chat.'] });
    const second = await client.responses.create({ model: 'thinker', input: 'more', previous_response_id: first.id });
    expect(second.output_text).toBe('From chat.');
    expect(JSON.stringify(chat.received[0]!.body)).not.toContain('sig-0f3a');

    claude.script({ kind: 'text', deltas: ['Back.'] });
    await client.responses.create({ model: 'thinker', input: 'again', previous_response_id: first.id });
    expect(anthropicMessagesWire.reasoningSentBack!(claude.received.at(-1)!.body)).toEqual(['sig-0f3a']);
  });
});

describe('the routing file', () => {
  test('mistakes in an upstream name where they are', () => {
    const write = (routes: unknown[]) => {
      const file = path.join(folder, 'bad.json');
      writeFileSync(file, JSON.stringify({ routes }));
      return () => gatewayProviders({ configPath: file, env: {} });
    };
    expect(write([{ model: 'm', upstreams: [primaryChat(), { url: 'ftp://x' }] }])).toThrow(
      /routes\[0\]\.upstreams\[1\]\.url/,
    );
    expect(write([{ model: 'm', upstreams: [{ url: 'http://127.0.0.1:1/v1', apiKey: 'sk-inline' }] }])).toThrow(
      /routes\[0\]\.upstreams\[0\]\.apiKey: keys are not written/,
    );
    expect(write([{ model: 'm', upstreams: [primaryChat()] }])).toThrow(
      /routes\[0\]\.upstreams\[0\]\.apiKeyEnv: the environment variable CHAT_KEY is not set/,
    );
    expect(write([{ model: 'm', upstreams: [] }])).toThrow(/routes\[0\]\.upstreams/);
    expect(
      write([
        {
          model: 'm',
          upstreams: [
            { name: 'a', url: 'http://127.0.0.1:1/v1' },
            { name: 'a', url: 'http://127.0.0.1:2/v1' },
          ],
        },
      ]),
    ).toThrow(/different names/);
    expect(write([{ model: 'm', cooldownMs: 10_000_000, upstreams: [{ url: 'http://127.0.0.1:1/v1' }] }])).toThrow(
      /routes\[0\]\.cooldownMs/,
    );
  });
});
