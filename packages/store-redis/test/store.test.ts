// The Redis store against a real redis-server: the shared store contract, one round trip per chain load
// whatever its length, nothing half-written, and 503-shaped failures while Redis is away.
import { StoredRecordError, StoreUnavailableError } from '@openresponses/server';
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
    ).rejects.toThrow(
      // The socket's cause (host:port), not ioredis's "Connection is closed".
      new RegExp(
        `Cannot reach Redis at redis://:\\*\\*\\*@127.0.0.1:${port}/0: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
      ),
    );
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

  test('a record that is not a stored response is refused with StoredRecordError, not served', async () => {
    const prefix = `corrupt${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url: redis.url, prefix });
    const raw = new Redis(redis.url);
    try {
      const first = sampleEntry();
      const second = sampleEntry({ previous: first.response.id });
      await store.put(first, 'alice');
      await store.put(second, 'alice');
      const corrupt = async (id: string, data: string) => raw.hset(`${prefix}response:${id}`, 'data', data);
      await corrupt(first.response.id, '{"response": {"id": 42}, "input": []}');
      await expect(store.get(first.response.id, 'alice')).rejects.toBeInstanceOf(StoredRecordError);
      await expect(store.getChain(second.response.id, 'alice')).rejects.toBeInstanceOf(StoredRecordError);
      await expect(store.getItem(`msg_in_${first.response.id}`, 'alice')).rejects.toThrow(/malformed record/);
      await corrupt(first.response.id, 'not json {');
      await expect(store.get(first.response.id, 'alice')).rejects.toThrow(/not JSON/);
      // A record under one id that holds another response is not served as the one asked for.
      await corrupt(first.response.id, JSON.stringify(second));
      await expect(store.get(first.response.id, 'alice')).rejects.toThrow(/holds another response/);
      await expect(store.update(first.response.id, 'alice', (c) => c)).rejects.toBeInstanceOf(StoredRecordError);
      expect(await store.get(second.response.id, 'alice')).toEqual(second);
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  test('layout 1 data (item keys shared by tenants) is migrated to owner-scoped item keys', async () => {
    const prefix = `migrate${Math.random()}:`;
    const raw = new Redis(redis.url);
    try {
      // What a version before layout 2 wrote: the response hash, and an item key naming only the item id.
      const old = sampleEntry();
      const id = old.response.id;
      const items = [`msg_in_${id}`, `msg_out_${id}`];
      await raw.hset(`${prefix}response:${id}`, {
        owner: 'alice',
        previous: '',
        status: 'completed',
        revision: '1',
        items: items.join('\n'),
        data: JSON.stringify(old),
      });
      await raw.pexpire(`${prefix}response:${id}`, 60_000);
      for (const item of items) await raw.set(`${prefix}item:${item}`, id, 'PX', 60_000);

      const store = await RedisResponseStore.connect({ url: redis.url, prefix });
      try {
        expect(await raw.get(`${prefix}layout`)).toBe('2');
        // Until migrated, the old response is there but its items are not indexed for its owner.
        expect(await store.get(id, 'alice')).toEqual(old);
        expect(await store.getItem(items[0]!, 'alice')).toBeUndefined();
        expect(await store.migrateItemKeys()).toEqual({ responses: 1, items: 2 });
        expect(await store.getItem(items[0]!, 'alice')).toEqual(old.input[0]);
        expect(await store.getItem(items[1]!, 'alice')).toEqual(old.response.output[0]);
        expect(await store.getItem(items[0]!, 'mallory')).toBeUndefined();
        expect(await raw.exists(`${prefix}item:${items[0]}`)).toBe(0);
        // The item keys take the response's remaining TTL.
        expect(await raw.pttl(`${prefix}owned-item:5:alice:${items[0]}`)).toBeGreaterThan(0);
        // Running it again changes nothing.
        expect(await store.migrateItemKeys()).toEqual({ responses: 1, items: 2 });
        expect(await store.getItem(items[0]!, 'alice')).toEqual(old.input[0]);
      } finally {
        await store.close();
      }

      // A database marked with a layout this version does not read is refused at start-up.
      await raw.set(`${prefix}layout`, '3');
      await expect(RedisResponseStore.connect({ url: redis.url, prefix })).rejects.toThrow(/holds key layout '3'/);
    } finally {
      raw.disconnect();
    }
  });
});
