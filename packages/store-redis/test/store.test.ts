// The Redis store against a real redis-server: the shared store contract, one round trip per chain load
// whatever its length, nothing half-written, and 503-shaped failures while Redis is away.
import { type StoredResponse, StoredRecordError, StoreUnavailableError } from '@openresponses/server';
import { describeStoreContract, sampleEntry } from '@openresponses/server/testing';
import { connect, createServer, type Socket } from 'node:net';
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

  test('a put given the turn’s JSON writes the record an older instance writes and reads: JSON.stringify(entry)', async () => {
    const prefix = `text${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url: redis.url, prefix });
    const raw = new Redis(redis.url);
    try {
      const entry = sampleEntry({ text: 'serialized once ✓ "quoted" \\ {}' });
      const text = { response: JSON.stringify(entry.response), input: JSON.stringify(entry.input) };
      expect(await store.put(entry, 'alice', text)).toBe(true);
      const data = await raw.hget(`${prefix}{5:alice}:response:${entry.response.id}`, 'data');
      expect(data).toBe(JSON.stringify(entry));
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  test('a long input given in pieces is written without joining them: the record JSON.stringify(entry) writes', async () => {
    const prefix = `pieces${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url: redis.url, prefix });
    const raw = new Redis(redis.url);
    try {
      // Latin-1, past it, and astral characters whose pairs a cut may split (those pieces are joined).
      for (const words of ['é "q" \\ ÿ ', '✓ "q" \\ ', '😀 "q" ']) {
        const entry = sampleEntry({ text: 'pieces' });
        (entry.input[0] as { content: Array<{ text: string }> }).content[0]!.text = words.repeat(30_000);
        const input = JSON.stringify(entry.input);
        const split = words.startsWith('😀');
        // For the astral text, the second cut falls between the two halves of a pair.
        const cut = split ? input.indexOf('\ud83d', 100_000) + 1 : 100_001;
        const inputPieces = [input.slice(0, 7), input.slice(7, cut), input.slice(cut, 200_002), input.slice(200_002)];
        const text = {
          response: JSON.stringify(entry.response),
          inputPieces,
          // The pieces are what a store given them writes; only a cut inside a pair needs the whole.
          get input(): string {
            if (split) return input;
            throw new Error('the store joined the pieces');
          },
        };
        expect(split).toBe(inputPieces.some((piece) => /[\ud800-\udbff]$/.test(piece)));
        expect(await store.put(entry, 'alice', text)).toBe(true);
        const data = await raw.hget(`${prefix}{5:alice}:response:${entry.response.id}`, 'data');
        expect(data).toBe(JSON.stringify(entry));
        expect(await store.get(entry.response.id, 'alice')).toEqual(JSON.parse(JSON.stringify(entry)));
      }
    } finally {
      raw.disconnect();
      await store.close();
    }
  });

  test('a connection lost in the middle of a put in pieces leaves nothing written', async () => {
    const proxy = await cuttingProxy(redis.port);
    const prefix = `cut${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url: `redis://127.0.0.1:${proxy.port}`, prefix, poolSize: 1 });
    const raw = new Redis(redis.url);
    try {
      const entry = sampleEntry({ text: 'cut' });
      (entry.input[0] as { content: Array<{ text: string }> }).content[0]!.text = 'é '.repeat(200_000);
      const input = JSON.stringify(entry.input);
      const inputPieces = [input.slice(0, 150_000), input.slice(150_000)];
      const text = { response: JSON.stringify(entry.response), input, inputPieces };
      // Redis gets the command's first 200,000 bytes (the first piece and part of the second), then the
      // connection closes.
      proxy.cutAfter(200_000);
      await expect(store.put(entry, 'alice', text)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(proxy.forwarded()).toBe(200_000);
      expect(await raw.keys(`${prefix}*`)).toEqual([`${prefix}layout`]);
    } finally {
      raw.disconnect();
      await store.close();
      await proxy.close();
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
      const corrupt = async (id: string, data: string) => raw.hset(`${prefix}{5:alice}:response:${id}`, 'data', data);
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

  test('layout 1 and 2 data is moved to layout 3 (owner hash tags) by migrate; connect refuses it until then', async () => {
    const prefix = `migrate${Math.random()}:`;
    const raw = new Redis(redis.url);
    try {
      // What versions before layout 3 wrote: response hashes named by id alone, item keys without a hash tag
      // (layout 1: <prefix>item:<itemId>; layout 2: <prefix>owned-item:<owner length>:<owner>:<itemId>).
      const write = async (entry: StoredResponse, owner: string, itemKey: (itemId: string) => string) => {
        const id = entry.response.id;
        const items = [`msg_in_${id}`, `msg_out_${id}`];
        await raw.hset(`${prefix}response:${id}`, {
          owner,
          previous: entry.response.previous_response_id ?? '',
          status: 'completed',
          revision: '1',
          items: items.join('\n'),
          data: JSON.stringify(entry),
        });
        await raw.pexpire(`${prefix}response:${id}`, 60_000);
        for (const item of items) await raw.set(itemKey(item), id, 'PX', 60_000);
      };
      const first = sampleEntry();
      const second = sampleEntry({ previous: first.response.id });
      await write(first, 'alice', (item) => `${prefix}item:${item}`);
      await write(second, 'alice', (item) => `${prefix}owned-item:5:alice:${item}`);
      await raw.set(`${prefix}layout`, '2');

      await expect(RedisResponseStore.connect({ url: redis.url, prefix })).rejects.toThrow(
        /holds key layout '2'.*run RedisResponseStore\.migrate/,
      );
      expect(await RedisResponseStore.migrate({ url: redis.url, prefix })).toEqual({ responses: 2, items: 4 });
      expect(await raw.get(`${prefix}layout`)).toBe('3');
      // Nothing of the old layout is left; the moved keys keep their TTL.
      expect(await raw.keys(`${prefix}response:*`)).toEqual([]);
      expect(await raw.keys(`${prefix}item:*`)).toEqual([]);
      expect(await raw.keys(`${prefix}owned-item:*`)).toEqual([]);
      const ttl = await raw.pttl(`${prefix}{5:alice}:response:${first.response.id}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await raw.pttl(`${prefix}{5:alice}:item:msg_in_${first.response.id}`)).toBeGreaterThan(0);

      const store = await RedisResponseStore.connect({ url: redis.url, prefix });
      try {
        expect(await store.getChain(second.response.id, 'alice')).toEqual({ chain: [first, second] });
        expect(await store.getItem(`msg_in_${first.response.id}`, 'alice')).toEqual(first.input[0]);
        expect(await store.getItem(`msg_out_${second.response.id}`, 'alice')).toEqual(second.response.output[0]);
        expect(await store.getItem(`msg_in_${first.response.id}`, 'mallory')).toBeUndefined();
        expect(await store.get(first.response.id, 'mallory')).toBeUndefined();
      } finally {
        await store.close();
      }
      // Running it again moves nothing.
      expect(await RedisResponseStore.migrate({ url: redis.url, prefix })).toEqual({ responses: 0, items: 0 });

      // A database marked with a layout this version does not read is refused at start-up, and not migrated.
      await raw.set(`${prefix}layout`, '4');
      await expect(RedisResponseStore.connect({ url: redis.url, prefix })).rejects.toThrow(
        /holds key layout '4' .*reads layout 3\.$/,
      );
      await expect(RedisResponseStore.migrate({ url: redis.url, prefix })).rejects.toThrow(/layout '4'/);
    } finally {
      raw.disconnect();
    }
  });
});

/**
 * A TCP proxy to Redis that, once `cutAfter(bytes)` is called, passes on that many more bytes from the client,
 * then closes both connections: a store that goes away in the middle of writing a command.
 */
async function cuttingProxy(target: number) {
  let budget = Number.POSITIVE_INFINITY;
  let passed = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (chunk.length <= budget) {
        budget -= chunk.length;
        passed += chunk.length;
        upstream.write(chunk);
        return;
      }
      passed += budget;
      // Redis reads the part, then the end of the connection: a command it never got whole.
      upstream.end(chunk.subarray(0, budget));
      budget = 0;
      client.destroy();
    });
    client.on('close', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cutAfter(bytes: number) {
      budget = bytes;
      passed = 0;
    },
    forwarded: () => passed,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
