// Redis killed (SIGKILL) and restarted under load across two server processes. Afterwards every response
// a client was given is retrievable and complete, clients saw only successes or spec-shaped errors, and
// neither server process restarted. Counts are printed. npm test runs a short version (~15 s, 16
// connections); `npm run fault -w @openresponses/store-redis` runs the 60 s, 32 connections.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Instance, KEYS, startInstance } from './instances.js';
import { type RedisServer, startRedis } from '../../../test-support/redis-server.js';

const SECONDS = Number(process.env.OPENRESPONSES_FAULT_SECONDS ?? 12);
const CONNECTIONS = Number(process.env.OPENRESPONSES_FAULT_CONNECTIONS ?? 16);

let redis: RedisServer;
let instances: Instance[] = [];
beforeAll(async () => {
  // Append-only file, fsync on every write: what Redis acknowledged survives SIGKILL.
  redis = await startRedis({ persistence: true });
  instances = await Promise.all([0, 1].map(() => startInstance({ OPENRESPONSES_STORE_URL: redis.url })));
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await redis?.dispose();
});

interface Acknowledged {
  id: string;
  text: string;
  instance: number;
}

const headers = { authorization: `Bearer ${KEYS[0]}`, 'content-type': 'application/json' };

test(`Redis killed and restarted under load (${SECONDS} s, ${CONNECTIONS} connections, two instances)`, {
  timeout: (SECONDS + 60) * 1000,
}, async () => {
  const pids = instances.map((instance) => instance.child.pid);
  const acknowledged: Acknowledged[] = [];
  const counts = { requests: 0, ok: 0, storeUnavailable: 0, otherErrors: 0, transportFailures: 0 };
  const unexpected: string[] = [];
  const deadline = Date.now() + SECONDS * 1000;

  const worker = async (connection: number) => {
    let previous: string | undefined;
    for (let n = 0; Date.now() < deadline; n++) {
      const instance = (connection + n) % 2;
      const body = {
        model: 'openresponses-deterministic',
        input: `Turn ${n} of connection ${connection}`,
        ...(previous && n % 3 !== 0 ? { previous_response_id: previous } : {}),
      };
      counts.requests++;
      let response: Response;
      try {
        response = await fetch(`${instances[instance]!.url}/v1/responses`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        counts.transportFailures++;
        unexpected.push(`transport: ${(error as Error).message}`);
        continue;
      }
      const payload = (await response.json()) as {
        id?: string;
        status?: string;
        output?: Array<{ content?: Array<{ text: string }> }>;
        error?: { type: string; code: string; message: string; param: unknown };
      };
      if (response.status === 200 && payload.status === 'completed') {
        counts.ok++;
        acknowledged.push({ id: payload.id!, text: payload.output!.at(-1)!.content![0]!.text, instance });
        previous = payload.id;
      } else if (
        response.status === 503 &&
        payload.error?.type === 'server_error' &&
        payload.error.code === 'store_unavailable' &&
        typeof payload.error.message === 'string' &&
        'param' in payload.error
      ) {
        counts.storeUnavailable++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } else {
        counts.otherErrors++;
        unexpected.push(`${response.status} ${JSON.stringify(payload).slice(0, 300)}`);
      }
    }
  };

  const chaos = (async () => {
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 300));
    await redis.stop(); // SIGKILL
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 200));
    await redis.restart();
  })();
  await Promise.all([...Array.from({ length: CONNECTIONS }, (_, c) => worker(c)), chaos]);

  // Every acknowledged response, read through the other instance: there, and complete.
  let retrievable = 0;
  const missing: string[] = [];
  for (const { id, text, instance } of acknowledged) {
    const other = instances[(instance + 1) % 2]!;
    const response = await fetch(`${other.url}/v1/responses/${id}`, { headers });
    const payload = (await response.json()) as {
      status?: string;
      output?: Array<{ content?: Array<{ text: string }> }>;
    };
    if (
      response.status === 200 &&
      payload.status === 'completed' &&
      payload.output?.at(-1)?.content?.[0]?.text === text
    )
      retrievable++;
    else missing.push(`${id}: ${response.status}`);
  }
  console.log(
    `fault test: ${JSON.stringify({ seconds: SECONDS, connections: CONNECTIONS, ...counts, acknowledged: acknowledged.length, retrievable, missing: missing.length })}`,
  );
  expect(unexpected.slice(0, 5)).toEqual([]);
  expect(missing.slice(0, 5)).toEqual([]);
  expect(retrievable).toBe(acknowledged.length);
  // The outage was real (requests failed while Redis was down) and service came back afterwards.
  expect(counts.storeUnavailable).toBeGreaterThan(0);
  expect(acknowledged.length).toBeGreaterThan(CONNECTIONS * 2);
  for (const [index, instance] of instances.entries()) {
    expect(instance.child.exitCode).toBeNull();
    expect(instance.child.pid).toBe(pids[index]);
  }
  const health = await Promise.all(instances.map((instance) => fetch(`${instance.url}/healthz`)));
  expect(health.map((response) => response.status)).toEqual([200, 200]);
});
