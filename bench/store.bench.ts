// Memory store vs Redis store, side by side in one run (a real redis-server on a free port): stored
// non-streaming turns and continuations of a 10-turn previous_response_id chain, requests/s and p99,
// from a loader in its own process (32 keep-alive connections), 5 alternating rounds, median shown.
// Also counts the Redis commands a chain load takes (INFO commandstats), to show one round trip per load.
import { InMemoryResponseStore, type ResponseStore } from '@openresponses/server';
import { startServer } from '@openresponses/server/node';
import { RedisResponseStore } from '@openresponses/store-redis';
import { Redis } from 'ioredis';
import { startRedis } from '../test-support/redis-server.js';
import { type LoadResult, load, median, rps } from './fixtures/load.js';

const MODEL = 'openresponses-deterministic';

/** A server on `store` with a 10-turn chain made; answers the two request bodies. */
async function setUp(store: ResponseStore) {
  const server = await startServer({ store, warn: () => {} });
  const post = async (body: unknown) => {
    const response = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`set-up request failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  let previous: string | undefined;
  for (let turn = 0; turn < 10; turn++)
    previous = (await post({ model: MODEL, input: `Turn ${turn}: my name is Ada.`, previous_response_id: previous }))
      .id;
  const single = JSON.stringify({ model: MODEL, input: 'Hello! My name is Ada. What can you do?' });
  // store: false so every request continues the same 10-turn chain (it does not grow).
  const chain = JSON.stringify({
    model: MODEL,
    input: 'What is my name?',
    previous_response_id: previous,
    store: false,
  });
  await post(JSON.parse(chain));
  return { server, url: `${server.url}/v1/responses`, single, chain };
}

export async function run(): Promise<void> {
  const redisServer = await startRedis();
  const memory = await setUp(new InMemoryResponseStore());
  const redisStore = await RedisResponseStore.connect({ url: redisServer.url });
  const redis = await setUp(redisStore);
  const concurrency = 32;
  try {
    for (const target of [memory, redis]) await load(target.url, target.single, concurrency, 0.5);
    // The chain first: the stored turns' rounds (~100k turns at today's rate) fill the memory store past its
    // 10,000 entries and evict the chain, whose continuations would then answer 404.
    const cases = ['chain', 'single'] as const;
    for (const name of cases) {
      const rounds: Array<{ memory: LoadResult; redis: LoadResult }> = [];
      for (let round = 0; round < 5; round++)
        rounds.push({
          memory: await load(memory.url, memory[name], concurrency, 2),
          redis: await load(redis.url, redis[name], concurrency, 2),
        });
      const ratios = rounds.map((r) => rps(r.redis) / rps(r.memory));
      const title =
        name === 'single'
          ? 'Stored non-streaming turns (POST /v1/responses)'
          : 'Continuations of a 10-turn previous_response_id chain (store: false, so the chain stays 10 turns)';
      console.log(`\n${title}, ${concurrency} connections, 5 alternating rounds of 2 s, median round`);
      console.log(`${'store'.padEnd(10)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
      for (const key of ['memory', 'redis'] as const) {
        const r = median(
          rounds.map((round) => round[key]),
          rps,
        );
        console.log(
          `${key.padEnd(10)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(9)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
        );
      }
      console.log(
        `ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios, (r) => r).toFixed(2)}x of the memory store (target >= 0.60x)`,
      );
    }

    // Commands per chain load, from Redis's own counters.
    const admin = new Redis(redisServer.url);
    const stats = async () => {
      const text = await admin.info('commandstats');
      const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(text)?.[1] ?? 0);
      return { scripts: calls('evalsha') + calls('eval'), hmget: calls('hmget') };
    };
    const before = await stats();
    const requests = 200;
    for (let i = 0; i < requests; i++)
      await fetch(redis.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: redis.chain });
    const after = await stats();
    console.log(
      `\nRedis commands per 10-turn continuation: ${((after.scripts - before.scripts) / requests).toFixed(2)} script call(s) from the server (one round trip), walking ${((after.hmget - before.hmget) / requests).toFixed(1)} links inside Redis`,
    );
    admin.disconnect();
  } finally {
    await memory.server.close();
    await redis.server.close();
    await redisStore.close();
    await redisServer.dispose();
  }
}
