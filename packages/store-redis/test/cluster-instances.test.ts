// Two reference server processes on a real 3-master Redis Cluster (a redis+cluster:// store URL): tenant
// isolation and shared admission across both, and a live slot migration: while a load of stored turns runs
// through both instances, the slot of the busiest owner moves from its master to another (CLUSTER SETSLOT
// IMPORTING/MIGRATING, MIGRATE … KEYS in small batches, SETSLOT NODE). ioredis follows ASK and MOVED; every
// response acknowledged with a 2xx is readable afterwards, and its chain continues.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describeTenantIsolation } from '@openresponses/server/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Instance, KEYS, startInstance } from './instances.js';
import { type RedisCluster, startRedisCluster } from '../../../test-support/redis-cluster.js';

const run = promisify(execFile);
const MODEL = 'openresponses-deterministic';
const RPM_KEY = 'cluster-key-of-the-rpm-tenant';

let cluster: RedisCluster;
let a: Instance;
let b: Instance;
let dir: string;
beforeAll(async () => {
  cluster = await startRedisCluster();
  dir = mkdtempSync(path.join(tmpdir(), 'openresponses-cluster-tenants-'));
  const tenants = path.join(dir, 'tenants.json');
  writeFileSync(
    tenants,
    JSON.stringify({
      tenants: [
        {
          name: 'rpm',
          keys: [{ sha256: createHash('sha256').update(RPM_KEY).digest('hex') }],
          limits: { requestsPerMinute: 30 },
        },
      ],
    }),
  );
  const env = {
    OPENRESPONSES_STORE_URL: `redis+cluster://${cluster.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`,
    OPENRESPONSES_TENANTS: tenants,
  };
  [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cluster?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function create(instance: Instance, key: string, body: Record<string, unknown>) {
  const response = await fetch(`${instance.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, ...body }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { id: string; error?: { code: string; message: string } },
  };
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout.trim();
}

describeTenantIsolation('two instances on a Redis Cluster', () => ({ urls: [a.url, b.url], keys: KEYS }), {
  describe,
  test,
  expect,
});

describe('two instances on a Redis Cluster', () => {
  test('a tenant limit of 30 requests a minute holds across both instances', async () => {
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/models`, { headers: { authorization: `Bearer ${RPM_KEY}` } }),
      ),
    );
    const passed = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(passed + refused.length).toBe(80);
    expect(passed).toBeGreaterThanOrEqual(30);
    expect(passed).toBeLessThanOrEqual(30 + Math.ceil(((Date.now() - started) / 60_000) * 30));
    expect(new Set(answers.flatMap((answer, i) => (answer.status === 429 ? [i % 2] : []))).size).toBe(2);
  });

  test('migrating the slot of a busy owner under a load of stored turns loses no acknowledged response', async () => {
    const owner = `key_${createHash('sha256').update(KEYS[0]).digest('hex').slice(0, 32)}`;
    const tag = `${Buffer.byteLength(owner)}:${owner}`;
    const [first] = cluster.nodes;
    const slot = Number(await cli(first!.port, 'CLUSTER', 'KEYSLOT', `{${tag}}`));
    // Which master serves the slot, and their node ids.
    const masters = await Promise.all(
      cluster.nodes.map(async (node) => ({ ...node, id: await cli(node.port, 'CLUSTER', 'MYID') })),
    );
    // CLUSTER NODES: `<id> <addr> <flags> <master> <ping> <pong> <epoch> <state> <slot ranges…>`.
    const servingId = (await cli(first!.port, 'CLUSTER', 'NODES'))
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) =>
        fields.slice(8).some((range) => {
          const [from, to = from] = range.split('-').map(Number);
          return from! <= slot && slot <= to!;
        }),
      )![0]!;
    const source = masters.find((node) => node.id === servingId)!;
    const target = masters.find((node) => node.id !== servingId)!;

    // The load: chains of stored turns for the busy owner, alternating instances, and a few for the other tenant.
    const acknowledged: Array<{ id: string; key: string }> = [];
    const failures: string[] = [];
    let stop = false;
    const chain = async (key: string, index: number) => {
      let previous: string | undefined;
      for (let turn = 0; !stop; turn++) {
        const answer = await create((index + turn) % 2 ? a : b, key, {
          input: `turn ${turn} of chain ${index}`,
          ...(previous ? { previous_response_id: previous } : {}),
        });
        if (answer.status !== 200) {
          failures.push(`${answer.status} ${answer.body.error?.code}: ${answer.body.error?.message}`);
          previous = undefined;
          continue;
        }
        acknowledged.push({ id: answer.body.id, key });
        previous = answer.body.id;
      }
    };
    const load = [
      ...Array.from({ length: 6 }, (_, index) => chain(KEYS[0], index)),
      ...Array.from({ length: 2 }, (_, index) => chain(KEYS[1], index)),
    ];
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Move the slot while the load runs, five keys at a time with a pause between, so turns meet it half-moved.
    const before = acknowledged.length;
    const migrationStarted = Date.now();
    const [from, to] = [new Redis(source.port, source.host), new Redis(target.port, target.host)];
    let moved = 0;
    try {
      await to.cluster('SETSLOT', slot, 'IMPORTING', source.id);
      await from.cluster('SETSLOT', slot, 'MIGRATING', target.id);
      for (;;) {
        const keys = (await from.cluster('GETKEYSINSLOT', slot, 5)) as string[];
        if (keys.length === 0) break;
        await from.migrate(target.host, target.port, '', 0, 5_000, 'KEYS', ...keys);
        moved += keys.length;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The target first, then the source (so neither sends the other's clients back), then the third master.
      for (const node of [target, source, ...masters.filter((node) => node !== target && node !== source)])
        await cli(node.port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', target.id);
    } finally {
      from.disconnect();
      to.disconnect();
    }
    const during = acknowledged.length - before;
    const migrationMs = Date.now() - migrationStarted;
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    await Promise.all(load);

    console.log(
      `slot ${slot}: ${moved} keys moved in ${migrationMs} ms, ${during} turns acknowledged meanwhile, ${acknowledged.length} in all, ${failures.length} answered 503`,
    );
    expect(moved).toBeGreaterThan(20);
    expect(during).toBeGreaterThan(0);
    expect(Number(await cli(source.port, 'CLUSTER', 'COUNTKEYSINSLOT', String(slot)))).toBe(0);
    expect(Number(await cli(target.port, 'CLUSTER', 'COUNTKEYSINSLOT', String(slot)))).toBeGreaterThan(0);
    // A write that meets the slot half-moved waits (TRYAGAIN) for at most commandTimeoutMs: on a loaded machine
    // a slow migration may outlast it, and that turn is answered 503 (not acknowledged, nothing half-written).
    for (const failure of failures) expect(failure).toMatch(/^503 store_unavailable: /);
    expect(acknowledged.filter((entry) => entry.key === KEYS[0]).length).toBeGreaterThan(moved / 3);
    // Every acknowledged response is readable afterwards, through either instance.
    const missing: string[] = [];
    for (const [index, { id, key }] of acknowledged.entries()) {
      const response = await fetch(`${(index % 2 ? a : b).url}/v1/responses/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (response.status !== 200) missing.push(`${id}: ${response.status}`);
    }
    expect(missing).toEqual([]);
    // And the busy owner's chains continue on the new master.
    const last = acknowledged.filter((entry) => entry.key === KEYS[0]).at(-1)!;
    expect((await create(a, KEYS[0], { previous_response_id: last.id, input: 'and after?' })).status).toBe(200);
  }, 60_000);
});
