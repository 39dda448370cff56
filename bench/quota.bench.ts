// Shared tenant admission (Redis, one script per check) against the in-memory one, side by side in one run on a
// real redis-server: the cost per request of the tenant checks alone (a requests-per-minute check; a turn's
// lease, token reservation and settlement with its usage), sequentially (latency) and 32 at a time (throughput),
// 5 alternating rounds, median shown, with the load average. Through the service the same checks are one await
// each, so this is the added cost per request of `--store redis://…` with a tenants file.
import { loadavg } from 'node:os';
import { MemoryQuota, periodOf, type QuotaBackend } from '@openresponses/server';
import { RedisResponseStore } from '@openresponses/store-redis';
import { startRedis } from '../test-support/redis-server.js';

const ROUNDS = 5;
const PER_ROUND = 2_000;
const usage = { inputTokens: 12, cachedTokens: 0, outputTokens: 30, reasoningTokens: 0 };
const limits = { tokensPerMinute: 1e12, dailyTokens: 1e15 };

/** Microseconds per operation of `operation`, `PER_ROUND` times, `concurrency` at a time. */
async function timed(operation: (i: number) => Promise<unknown>, concurrency: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < PER_ROUND) await operation(next++);
    }),
  );
  return ((performance.now() - started) * 1000) / PER_ROUND;
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
const store = await RedisResponseStore.connect({ url: redis.url });
try {
  const backends: Record<string, QuotaBackend> = { memory: new MemoryQuota(), redis: store.quotaBackend() };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`Tenant admission, memory vs Redis (redis-server on loopback), load average ${loadavg()[0]!.toFixed(1)}`);
  for (const [name, make] of [
    ['request check (requests per minute)', request],
    ['turn (lease, reserve, settle + usage, release)', turn],
  ] as const)
    for (const concurrency of [1, 32]) {
      const samples: Record<string, number[]> = { memory: [], redis: [] };
      for (let round = 0; round < ROUNDS; round++)
        for (const backend of ['memory', 'redis'])
          samples[backend]!.push(await timed(make(backends[backend]!), concurrency));
      const memory = median(samples.memory!);
      const shared = median(samples.redis!);
      console.log(
        `  ${name}, ${concurrency} at a time: memory ${memory.toFixed(1)} µs, Redis ${shared.toFixed(1)} µs per request (+${(shared - memory).toFixed(1)} µs, ${(shared / memory).toFixed(1)}x)`,
      );
    }
  console.log(`  load average after: ${loadavg()[0]!.toFixed(1)}`);
} finally {
  await store.close();
  await redis.dispose();
}
