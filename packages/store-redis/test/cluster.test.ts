// The Redis store and tenant admission on a real Redis Cluster of three masters (started by the test): the store
// contract through a redis+cluster:// URL, the quota contract through ioredis's Cluster client, owners and
// tenants spread over the shards (each one's keys in one slot).
import { describeQuotaContract, describeStoreContract, sampleEntry } from '@openresponses/server/testing';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RedisQuota, RedisResponseStore } from '../src/index.js';
import { type RedisCluster, startRedisCluster } from '../../../test-support/redis-cluster.js';

let cluster: RedisCluster;
let client: Cluster;
let url: string;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = new Cluster(cluster.nodes, { enableOfflineQueue: true });
  // One seed node is enough: the client discovers the others.
  url = `redis+cluster://${cluster.nodes[0]!.host}:${cluster.nodes[0]!.port}`;
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await cluster?.dispose();
});

describeStoreContract(
  'redis cluster',
  { create: ({ ttlMs }) => RedisResponseStore.connect({ url, ttlMs, prefix: `s${Math.random()}:` }) },
  { describe, test, expect },
);

describeQuotaContract(
  'redis cluster',
  { create: async () => RedisQuota.overCluster(client, `c${Math.random()}:`) },
  {
    describe,
    test,
    expect,
  },
);

describe('RedisResponseStore on Redis Cluster', () => {
  test('owners land on every shard; one owner chain and its items sit in one slot', async () => {
    const prefix = `spread${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url: `${url},127.0.0.1:${cluster.nodes[1]!.port}`, prefix });
    try {
      for (let owner = 0; owner < 30; owner++) {
        let previous: string | null = null;
        for (let turn = 0; turn < 3; turn++) {
          const entry = sampleEntry({ previous });
          await store.put(entry, `owner-${owner}`);
          previous = entry.response.id;
        }
        expect((await store.getChain(previous!, `owner-${owner}`)).chain).toHaveLength(3);
      }
      const masters = client.nodes('master');
      const keys = (await Promise.all(masters.map((node) => node.keys(`${prefix}*`)))).map((found) =>
        found.filter((key) => key !== `${prefix}layout`),
      );
      expect(keys).toHaveLength(3);
      for (const onNode of keys) expect(onNode.length).toBeGreaterThan(0);
      // 30 owners x (3 responses + 6 items), each owner's 9 keys on one node and in one slot.
      expect(keys.flat()).toHaveLength(270);
      const slots = new Map<string, Set<number>>();
      for (const key of keys.flat()) {
        const owner = /\{\d+:(owner-\d+)\}/.exec(key)![1]!;
        const slot = (await client.cluster('KEYSLOT', key)) as number;
        slots.set(owner, (slots.get(owner) ?? new Set()).add(slot));
      }
      expect(slots.size).toBe(30);
      for (const set of slots.values()) expect(set.size).toBe(1);
    } finally {
      await store.close();
    }
  });

  test('a slot caught half-moved: a chain, an item and a write still answer as if it were whole', async () => {
    const prefix = `half${Math.random()}:`;
    const store = await RedisResponseStore.connect({ url, prefix });
    const stem = `${prefix}{5:alice}:`;
    const slot = (await client.cluster('KEYSLOT', `${stem}x`)) as number;
    const masters = client.nodes('master');
    const ids = await Promise.all(masters.map((node) => node.cluster('MYID') as Promise<string>));
    const owners = await Promise.all(masters.map((node) => node.cluster('COUNTKEYSINSLOT', slot) as Promise<number>));
    try {
      const chain = [sampleEntry()];
      for (let turn = 1; turn < 4; turn++) chain.push(sampleEntry({ previous: chain.at(-1)!.response.id }));
      for (const entry of chain) await store.put(entry, 'alice');
      const sourceIndex = (await Promise.all(masters.map((node) => node.cluster('COUNTKEYSINSLOT', slot)))).findIndex(
        (count, index) => (count as number) > owners[index]!,
      );
      const [source, target] = [masters[sourceIndex]!, masters[(sourceIndex + 1) % masters.length]!];
      const targetId = ids[(sourceIndex + 1) % masters.length]!;
      await target.cluster('SETSLOT', slot, 'IMPORTING', ids[sourceIndex]!);
      await source.cluster('SETSLOT', slot, 'MIGRATING', targetId);
      // The two oldest links and the first one's response key move; their item keys stay behind for now.
      const moved = [chain[0]!, chain[1]!].map((entry) => `${stem}response:${entry.response.id}`);
      await source.migrate(target.options.host!, target.options.port!, '', 0, 5_000, 'KEYS', ...moved);
      expect(await store.getChain(chain[3]!.response.id, 'alice')).toEqual({ chain });
      expect(await store.getItem(`msg_in_${chain[0]!.response.id}`, 'alice')).toEqual(chain[0]!.input[0]);
      expect(await store.getChain(chain[1]!.response.id, 'alice')).toEqual({ chain: chain.slice(0, 2) });
      // A new response (several new keys) cannot be written while the slot is open (Redis answers TRYAGAIN):
      // the write waits, and lands as soon as the move is finished.
      const rest = (await source.cluster('GETKEYSINSLOT', slot, 1000)) as string[];
      await source.migrate(target.options.host!, target.options.port!, '', 0, 5_000, 'KEYS', ...rest);
      const next = sampleEntry({ previous: chain[3]!.response.id });
      let written: boolean | undefined;
      const writing = store.put(next, 'alice').then((answer) => {
        written = answer;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(written).toBeUndefined();
      for (const node of [target, source, ...masters.filter((node) => node !== target && node !== source)])
        await node.cluster('SETSLOT', slot, 'NODE', targetId);
      await writing;
      expect(written).toBe(true);
      expect(await store.getChain(next.response.id, 'alice')).toEqual({ chain: [...chain, next] });
      // All five responses and their ten items now on the target: alice's keys only (the prefix's untagged
      // layout marker sits in its own slot, on the target 1 time in 3).
      expect(await target.keys(`${stem}*`)).toHaveLength(5 + 10);
    } finally {
      await store.close();
    }
  });

  test('a cluster URL with a database, or without a node, is refused in one line', async () => {
    await expect(RedisResponseStore.connect({ url: `${url}/2` })).rejects.toThrow(
      /^Redis Cluster has only database 0; redis\+cluster:\/\/127\.0\.0\.1:\d+\/2 names '2'\.$/,
    );
    await expect(RedisResponseStore.connect({ url: 'redis+cluster://:secret@' })).rejects.toThrow(
      /^Unreadable Redis Cluster URL redis\+cluster:\/\/:\*\*\*@: use redis\+cluster:/,
    );
    await expect(RedisResponseStore.migrate({ url })).rejects.toThrow(/never ran on Redis Cluster/);
  });
});

describe('RedisQuota on Redis Cluster', () => {
  test('tenants land on every shard, each tenant in one slot', async () => {
    const quota = RedisQuota.overCluster(client, 'spread:');
    for (let i = 0; i < 30; i++) expect((await quota.takeRequest(`tenant-${i}`, 10)).allowed).toBe(true);
    const counts = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(counts).toHaveLength(3);
    for (const count of counts) expect(count).toBeGreaterThan(0);
  });
});
