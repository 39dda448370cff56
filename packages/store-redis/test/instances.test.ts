// Two reference server processes on one real redis-server, driven with the official openai SDK: one
// shared set of responses (create on A, continue/GET/input_items on B, DELETE on A, a WebSocket
// continuation on B of a response made on A), tenant isolation across both, and start-up faults.
import { describeTenantIsolation, socketTurn } from '@openresponses/server/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Instance, KEYS, startInstance } from './instances.js';
import { freePort, type RedisServer, startRedis } from '../../../test-support/redis-server.js';

let redis: RedisServer;
let a: Instance;
let b: Instance;
beforeAll(async () => {
  redis = await startRedis();
  [a, b] = await Promise.all([
    startInstance({ OPENRESPONSES_STORE_URL: redis.url }),
    startInstance({ OPENRESPONSES_STORE_URL: redis.url }),
  ]);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.dispose();
});

const client = (instance: Instance, key: string = KEYS[0]) =>
  new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: key, maxRetries: 0 });
const MODEL = 'openresponses-deterministic';

describe('two instances on one Redis', () => {
  test('create on A; continue, GET and input_items on B; DELETE on A', async () => {
    const created = await client(a).responses.create({ model: MODEL, input: 'My name is Ada.' });
    const continued = await client(b).responses.create({
      model: MODEL,
      previous_response_id: created.id,
      input: 'What is my name?',
    });
    expect(continued.output_text).toBe('Your name is Ada.');
    const fetched = await client(b).responses.retrieve(created.id);
    expect(fetched.id).toBe(created.id);
    expect(fetched.output).toEqual(created.output);
    const items = await client(b).responses.inputItems.list(created.id);
    expect(items.data).toHaveLength(1);
    expect(JSON.stringify(items.data[0])).toContain('My name is Ada.');
    await client(a).responses.delete(created.id);
    await expect(client(b).responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    // The continuation stays (it was stored on its own), but its chain is broken now.
    await expect(
      client(a).responses.create({ model: MODEL, previous_response_id: continued.id, input: 'And again?' }),
    ).rejects.toMatchObject({ status: 404, code: 'previous_response_not_found' });
  });

  test('a WebSocket store: true turn on B continues a response made on A, and A sees it', async () => {
    const created = await client(a).responses.create({ model: MODEL, input: 'My favorite color is teal.' });
    const turn = await socketTurn(b.url, KEYS[0], {
      previous_response_id: created.id,
      input: 'What is my favorite color?',
    });
    expect(turn.type).toBe('response.completed');
    expect(JSON.stringify(turn.response.output)).toContain('teal');
    const again = await client(a).responses.retrieve(turn.response.id);
    expect(again.previous_response_id).toBe(created.id);
  });
});

describe('background responses across two instances', () => {
  test('created on A, polled on B until completed', async () => {
    const created = await client(a).responses.create({
      model: MODEL,
      input: 'Hello in the background',
      background: true,
    });
    expect(created.background).toBe(true);
    expect(['queued', 'in_progress', 'completed']).toContain(created.status);
    let polled = await client(b).responses.retrieve(created.id);
    for (let tries = 0; polled.status !== 'completed' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      polled = await client(b).responses.retrieve(created.id);
    }
    expect(polled.status).toBe('completed');
    expect(polled.output_text).toBe('You said: "Hello in the background".');
  });

  test('running on A (streamed), cancelled on B: A stops it and it stays cancelled', async () => {
    const stream = await client(a).responses.create({
      model: MODEL,
      input: `${'word '.repeat(80)}[slow]`, // paced at 25 ms a word: about 2 s
      background: true,
      stream: true,
    });
    const types: string[] = [];
    let id: string | undefined;
    const cancelled = (async () => {
      while (!id) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      return client(b).responses.cancel(id);
    })();
    // The stream ends with an error event, which the SDK raises.
    const ended = await (async () => {
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.created') id = event.response.id;
      }
    })().catch((error: Error) => error);
    expect((ended as Error).message).toContain('cancelled');
    expect((await cancelled).status).toBe('cancelled');
    expect(types).not.toContain('response.completed');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await client(a).responses.retrieve(id!)).status).toBe('cancelled');
  });
});

describeTenantIsolation('redis store across two instances', () => ({ urls: [a.url, b.url], keys: KEYS }), {
  describe,
  test,
  expect,
});

describe('start-up faults', () => {
  test('Redis unreachable at start-up: a clear message and a non-zero exit', async () => {
    const port = await freePort();
    const failure = await startInstance({ OPENRESPONSES_STORE_URL: `redis://127.0.0.1:${port}/0` }).then(
      () => undefined,
      (error: { code: number; output: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.output).toContain(`Cannot reach Redis at redis://127.0.0.1:${port}/0`);
  });

  test('with --store-fallback memory it serves from memory, loudly', async () => {
    const port = await freePort();
    const instance = await startInstance({ OPENRESPONSES_STORE_URL: `redis://127.0.0.1:${port}/0` }, [
      '--store-fallback',
      'memory',
    ]);
    try {
      expect(instance.output()).toMatch(/WARNING: Cannot reach Redis.*in-memory store.*NOT shared/);
      const created = await client(instance).responses.create({ model: MODEL, input: 'hello' });
      expect((await client(instance).responses.retrieve(created.id)).id).toBe(created.id);
    } finally {
      await instance.stop();
    }
  });

  test('an unsupported store URL is refused', async () => {
    const failure = await startInstance({ OPENRESPONSES_STORE_URL: 'mongodb://127.0.0.1/x' }).then(
      () => undefined,
      (error: { code: number; output: string }) => error,
    );
    // A bad value is a usage error (exit 2) naming the setting; the URL itself is not echoed (it may hold a password).
    expect(failure?.code).toBe(2);
    expect(failure?.output).toContain(
      "value '…' from env 'OPENRESPONSES_STORE_URL' is invalid. Expected memory, redis://host:port/db or redis+cluster://",
    );
    expect(failure?.output).not.toContain('mongodb://');
  });
});
