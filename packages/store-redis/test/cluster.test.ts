// Tenant admission on a real Redis Cluster of three masters (started by the test): the quota contract through
// ioredis's Cluster client, and tenants spread over the shards (each tenant's keys in one slot).
import { describeQuotaContract } from '@openresponses/server/testing';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RedisQuota } from '../src/index.js';
import { type RedisCluster, startRedisCluster } from '../../../test-support/redis-cluster.js';

let cluster: RedisCluster;
let client: Cluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  client = new Cluster(cluster.nodes, { enableOfflineQueue: true });
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await cluster?.dispose();
});

describeQuotaContract(
  'redis cluster',
  { create: async () => RedisQuota.overCluster(client, `c${Math.random()}:`) },
  {
    describe,
    test,
    expect,
  },
);

describe('RedisQuota on Redis Cluster', () => {
  test('tenants land on every shard, each tenant in one slot', async () => {
    const quota = RedisQuota.overCluster(client, 'spread:');
    for (let i = 0; i < 30; i++) expect((await quota.takeRequest(`tenant-${i}`, 10)).allowed).toBe(true);
    const counts = await Promise.all(client.nodes('master').map((node) => node.dbsize()));
    expect(counts).toHaveLength(3);
    for (const count of counts) expect(count).toBeGreaterThan(0);
  });
});
