// Shared tenant admission (Redis, one script per check) against the in-memory one, side by side in one run on a
// real redis-server and a real 3-master Redis Cluster: the cost per request of the tenant checks alone (a
// requests-per-minute check; a turn's lease, token reservation and settlement with its usage), sequentially
// (latency) and 32 at a time (throughput), 5 alternating rounds, median shown: wall time, and CPU time (user +
// system) of this process and of the Redis servers (INFO cpu), with the load average. Through the service the same
// checks are one await each, so this is the added cost per request of `--store redis://…` with a tenants file.
import { loadavg } from 'node:os';
import { MemoryQuota, periodOf, type QuotaBackend } from '@openresponses/server';
import { RedisResponseStore } from '@openresponses/store-redis';
import { Redis } from 'ioredis';
import { startRedisCluster } from '../test-support/redis-cluster.js';
import { startRedis } from '../test-support/redis-server.js';

const ROUNDS = 5;
const PER_ROUND = 2_000;
const usage = { inputTokens: 12, cachedTokens: 0, outputTokens: 30, reasoningTokens: 0 };
const limits = { tokensPerMinute: 1e12, dailyTokens: 1e15 };

/** The CPU seconds (user + system) the Redis servers on these ports have used so far. */
async function redisCpu(ports: number[]): Promise<number> {
  let total = 0;
  for (const port of ports) {
    const client = new Redis(port, '127.0.0.1');
    const info = await client.info('cpu');
    client.disconnect();
    for (const field of ['used_cpu_sys', 'used_cpu_user'])
      total += Number(new RegExp(`${field}:([\\d.]+)`).exec(info)![1]);
  }
  return total;
}

/** Per operation, `PER_ROUND` times, `concurrency` at a time: wall µs, this process's CPU µs, the servers' CPU µs. */
async function timed(operation: (i: number) => Promise<unknown>, concurrency: number, ports: number[]) {
  const serverBefore = ports.length > 0 ? await redisCpu(ports) : 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < PER_ROUND) await operation(next++);
    }),
  );
  const wall = ((performance.now() - started) * 1000) / PER_ROUND;
  const cpu = process.cpuUsage(cpuBefore);
  const server = ports.length > 0 ? ((await redisCpu(ports)) - serverBefore) * 1e6 : 0;
  return { wall, cpu: (cpu.user + cpu.system) / PER_ROUND, server: server / PER_ROUND };
}

const request = (backend: QuotaBackend) => (i: number) => backend.takeRequest(`tenant-${i % 16}`, 1e9);
const turn = (backend: QuotaBackend) => async (i: number) => {
  const tenant = `tenant-${i % 16}`;
  const period = periodOf(Date.now());
  const lease = await backend.acquireLease(tenant, 'turn', 1e6, 30_000);
  await backend.reserveTokens(tenant, 100, limits, period);
  await backend.settle(tenant, { reserved: 100, usage, model: 'm', period, limits });
  await backend.releaseLease(tenant, 'turn', lease!);
};

const redis = await startRedis();
const cluster = await startRedisCluster();
const store = await RedisResponseStore.connect({ url: redis.url });
const clusterStore = await RedisResponseStore.connect({
  url: `redis+cluster://${cluster.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`,
});
try {
  const backends: Record<string, { quota: QuotaBackend; ports: number[] }> = {
    memory: { quota: new MemoryQuota(), ports: [] },
    redis: { quota: store.quotaBackend(), ports: [redis.port] },
    cluster: { quota: clusterStore.quotaBackend(), ports: cluster.nodes.map((node) => node.port) },
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(
    `Tenant admission, memory vs Redis vs Redis Cluster (3 masters), on loopback; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  console.log('  per request: wall µs | CPU µs of this process | CPU µs of the Redis servers');
  for (const [name, make] of [
    ['request check (requests per minute)', request],
    ['turn (lease, reserve, settle + usage, release)', turn],
  ] as const)
    for (const concurrency of [1, 32]) {
      const samples: Record<string, Array<{ wall: number; cpu: number; server: number }>> = {};
      for (let round = 0; round < ROUNDS; round++)
        for (const [backend, { quota, ports }] of Object.entries(backends))
          (samples[backend] ??= []).push(await timed(make(quota), concurrency, ports));
      const cells = Object.entries(samples).map(([backend, runs]) => {
        const [wall, cpu, server] = (['wall', 'cpu', 'server'] as const).map((field) =>
          median(runs.map((run) => run[field])),
        );
        return `${backend} ${wall!.toFixed(1)} | ${cpu!.toFixed(1)} | ${server!.toFixed(1)}`;
      });
      console.log(`  ${name}, ${concurrency} at a time: ${cells.join('; ')}`);
    }
  console.log(`  load average after: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await store.close();
  await clusterStore.close();
  await redis.dispose();
  await cluster.dispose();
}
