// The Redis store against a real redis-server: the shared store contract, one round trip per chain load
// whatever its length, nothing half-written, and 503-shaped failures while Redis is away.
import { StoreUnavailableError } from '@openresponses/server';
import { describeStoreContract, sampleEntry } from '@openresponses/server/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RedisResponseStore } from '../src/index.js';
import { type RedisServer, startRedis } from '../../../test-support/redis-server.js';

let redis: RedisServer;
let database = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.dispose());

// Each store gets its own database, so tests cannot see each other's keys.
const url = () => `redis://127.0.0.1:${redis.port}/${database++ % 16}`;
describeStoreContract(
  'redis',
  {
    create: ({ ttlMs }) => RedisResponseStore.connect({ url: url(), ttlMs, prefix: `t${Math.random()}:` }),
  },
  { describe, test, expect },
);

describe('RedisResponseStore', () => {
  test('a 50-turn chain loads in one round trip', async () => {
    const store = await RedisResponseStore.connect({ url: url(), poolSize: 1 });
    const monitor = new Redis(redis.url);
    try {
      let previous: string | null = null;
      for (let turn = 0; turn < 50; turn++) {
        const entry = sampleEntry({ previous });
        await store.put(entry, 'alice');
        previous = entry.response.id;
      }
      const commands: string[] = [];
      const watcher = await monitor.monitor();
      watcher.on('monitor', (_time: string, args: string[]) => commands.push(args[0]!.toLowerCase()));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { chain, missing } = await store.getChain(previous!, 'alice');
      await new Promise((resolve) => setTimeout(resolve, 100));
      watcher.disconnect();
      expect(missing).toBeUndefined();
      expect(chain).toHaveLength(50);
      // MONITOR shows the script call, then what the script did (each call inside it is listed after).
      expect(commands.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(1);
      expect(commands.filter((c) => c === 'hmget')).toHaveLength(50);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  test('an unreachable Redis fails start-up with a clear error', async () => {
    const closedPort = (await import('../../../test-support/redis-server.js')).freePort;
    const port = await closedPort();
    await expect(
      RedisResponseStore.connect({ url: `redis://:secret@127.0.0.1:${port}/0`, connectTimeoutMs: 500 }),
    ).rejects.toThrow(new RegExp(`Cannot reach Redis at redis://:\\*\\*\\*@127.0.0.1:${port}/0`));
  });

  test('while Redis is away every call fails with StoreUnavailableError; it recovers on its own', async () => {
    const own = await startRedis();
    const store = await RedisResponseStore.connect({ url: own.url, commandTimeoutMs: 500 });
    try {
      const before = sampleEntry();
      await store.put(before, 'alice');
      await own.stop();
      const calls = [
        () => store.get(before.response.id, 'alice'),
        () => store.put(sampleEntry(), 'alice'),
        () => store.getChain(before.response.id, 'alice'),
        () => store.getItem('x', 'alice'),
        () => store.delete(before.response.id, 'alice'),
      ];
      for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
      await own.restart();
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await store.put(sampleEntry(), 'alice');
          break;
        } catch (error) {
          expect(error).toBeInstanceOf(StoreUnavailableError);
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    } finally {
      await store.close();
      await own.dispose();
    }
  });
});
