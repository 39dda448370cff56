// The proof of shared tenant limits: two reference server processes (the real CLI) on one real redis-server,
// one tenants file. Under concurrent load across both, a tenant gets at most its limit plus what refills
// meanwhile (GCRA's bound, `limit + limit * t / 60`), then 429s with Retry-After; tokens per minute and a daily
// budget hold the same way; a killed instance's turn leases come back within their TTL; and the usage the
// operator reads equals what the clients received over JSON, SSE, WebSocket and cancelled turns.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { socketTurn } from '@openresponses/server/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Instance, startInstance } from './instances.js';
import { type RedisServer, startRedis } from '../../../test-support/redis-server.js';

const MODEL = 'openresponses-deterministic';
const ADMIN = 'admin-key-of-the-operator';
const KEY = {
  rpm: 'key-rpm-tenant',
  tpm: 'key-tpm-tenant',
  daily: 'key-daily-tenant',
  turns: 'key-turns-tenant',
  mixed: 'key-mixed-tenant',
};
const LEASE_TTL_MS = 2_000;

let redis: RedisServer;
let a: Instance;
let b: Instance;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  redis = await startRedis();
  dir = mkdtempSync(path.join(tmpdir(), 'openresponses-tenants-'));
  const file = path.join(dir, 'tenants.json');
  const digest = (key: string) => ({ sha256: createHash('sha256').update(key).digest('hex') });
  writeFileSync(
    file,
    JSON.stringify({
      tenants: [
        { name: 'rpm', keys: [digest(KEY.rpm)], limits: { requestsPerMinute: 120 } },
        { name: 'tpm', keys: [digest(KEY.tpm)], limits: { tokensPerMinute: 400 } },
        { name: 'daily', keys: [{ env: 'DAILY_TENANT_KEY' }], limits: { dailyTokens: 300 } },
        { name: 'turns', keys: [digest(KEY.turns)], limits: { turnsInFlight: 2 } },
        { name: 'mixed', keys: [digest(KEY.mixed)] },
      ],
    }),
  );
  env = {
    OPENRESPONSES_STORE_URL: redis.url,
    OPENRESPONSES_TENANTS: file,
    OPENRESPONSES_TENANT_LEASE_TTL: `${LEASE_TTL_MS}`,
    OPENRESPONSES_ADMIN_KEY: ADMIN,
    DAILY_TENANT_KEY: KEY.daily,
  };
  [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const client = (instance: Instance, key: string) =>
  new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: key, maxRetries: 0 });
type Failure = { status?: number; code?: string; headers?: Headers };
const tokensOf = (usage: { input_tokens: number; output_tokens: number } | null | undefined) =>
  (usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0);

describe('tenant limits across two instances on one Redis', () => {
  test('120 requests a minute: at most 120 plus the refill pass across both, the rest are 429 with Retry-After', async () => {
    const started = Date.now();
    // 150 to each instance, more than the limit: whichever instance the load reaches first, both must refuse some.
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/v1/models`, { headers: { authorization: `Bearer ${KEY.rpm}` } }),
      ),
    );
    const elapsed = Date.now() - started;
    const passed = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(passed + refused.length).toBe(300);
    // GCRA's bound: the minute's 120 at once plus two a second that refill.
    expect(passed).toBeGreaterThanOrEqual(120);
    expect(passed).toBeLessThanOrEqual(120 + Math.ceil((elapsed / 60_000) * 120));
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('x-ratelimit-limit-requests')).toBe('120');
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    }
    // Both instances refused some: the limit is one, not one per instance.
    const refusedBy = new Set(answers.flatMap((answer, i) => (answer.status === 429 ? [i % 2] : [])));
    expect(refusedBy.size).toBe(2);
  });

  test('400 tokens a minute: what the admitted turns used stays within the rate, then rate_limit_exceeded', async () => {
    const started = Date.now();
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        client(i % 2 ? a : b, KEY.tpm)
          .responses.create({ model: MODEL, input: 'Summarise the quota rules', max_output_tokens: 40 })
          .then(
            (response) => ({ used: tokensOf(response.usage) }),
            (error: Failure) => ({ error }),
          ),
      ),
    );
    const elapsed = Date.now() - started;
    const used = outcomes.reduce((sum, outcome) => sum + ('used' in outcome ? outcome.used : 0), 0);
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(400 + Math.ceil((elapsed / 60_000) * 400));
    const refusals = outcomes.flatMap((outcome) => ('error' in outcome ? [outcome.error] : []));
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(Number(refusal.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  test('a daily budget of 300 tokens: turns across both until it is spent, then insufficient_quota', async () => {
    let used = 0;
    let refusal: Failure | undefined;
    for (let round = 0; round < 20 && !refusal; round++) {
      const outcomes = await Promise.all(
        [a, b, a, b].map((instance) =>
          client(instance, KEY.daily)
            .responses.create({ model: MODEL, input: 'Spend the budget', max_output_tokens: 30 })
            .then(
              (response) => tokensOf(response.usage),
              (error: Failure) => {
                refusal ??= error;
                return 0;
              },
            ),
        ),
      );
      used += outcomes.reduce((sum, tokens) => sum + tokens, 0);
    }
    // A refusal while turns were in flight counts their reservations; with none in flight, spent means used.
    for (let i = 0; i < 20; i++) {
      const tokens = await client(a, KEY.daily)
        .responses.create({ model: MODEL, input: 'Spend the budget', max_output_tokens: 30 })
        .then(
          (response) => tokensOf(response.usage),
          (error: Failure) => {
            refusal = error;
            return undefined;
          },
        );
      if (tokens === undefined) break;
      used += tokens;
    }
    expect(refusal).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(used).toBeGreaterThanOrEqual(300);
    // Refused once used plus reserved reached 300: past it by at most the last admitted reservations.
    expect(used).toBeLessThan(300 + 4 * 40);
    // And it stays spent, on either instance.
    for (const instance of [a, b])
      await expect(
        client(instance, KEY.daily).responses.create({ model: MODEL, input: 'more', max_output_tokens: 5 }),
      ).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
  });

  test('usage read by the operator equals what clients received over JSON, SSE, WebSocket and cancelled turns', async () => {
    const received = { requests: 0, input: 0, output: 0 };
    const add = (usage: { input_tokens: number; output_tokens: number } | null | undefined) => {
      received.requests++;
      received.input += usage?.input_tokens ?? 0;
      received.output += usage?.output_tokens ?? 0;
    };
    const turns: Array<Promise<void>> = [];
    for (const [i, instance] of [a, b, a, b].entries()) {
      turns.push(
        client(instance, KEY.mixed)
          .responses.create({ model: MODEL, input: `json turn ${i} [think]` })
          .then((response) => add(response.usage)),
      );
      turns.push(
        (async () => {
          const stream = await client(instance, KEY.mixed).responses.create({
            model: MODEL,
            input: `streamed turn ${i}`,
            stream: true,
          });
          for await (const event of stream) if (event.type === 'response.completed') add(event.response.usage);
        })(),
      );
      turns.push(
        socketTurn(instance.url, KEY.mixed, { input: `websocket turn ${i}` }).then((message) =>
          add((message as { response: { usage: { input_tokens: number; output_tokens: number } } }).response.usage),
        ),
      );
    }
    // Cancelled turns: background turns cancelled from the other instance, as their final state tells.
    for (const [mine, other] of [
      [a, b],
      [b, a],
    ] as const)
      turns.push(
        (async () => {
          // Streamed (so the model paces its deltas) and in the background (so another instance can cancel it).
          const stream = await client(mine, KEY.mixed).responses.create({
            model: MODEL,
            input: 'a long answer [slow] [long]',
            background: true,
            stream: true,
          });
          let id: string | undefined;
          for await (const event of stream) {
            if (event.type === 'response.created') id = event.response.id;
            if (event.type === 'response.output_text.delta' && id) {
              await client(other, KEY.mixed).responses.cancel(id);
              break;
            }
          }
          let final = await client(mine, KEY.mixed).responses.retrieve(id!);
          for (let i = 0; i < 100 && !['cancelled', 'completed', 'failed', 'incomplete'].includes(final.status!); i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            final = await client(mine, KEY.mixed).responses.retrieve(id!);
          }
          expect(final.status).toBe('cancelled');
          add(final.usage);
        })(),
      );
    await Promise.all(turns);
    // A background turn's account is written as it ends; give the last one a moment.
    const today = new Date().toISOString().slice(0, 10);
    let rows: Array<Record<string, number | string>> = [];
    for (let i = 0; i < 20; i++) {
      const answer = await fetch(`${(i % 2 ? a : b).url}/v1/usage?tenant=mixed&from=${today}`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(answer.status).toBe(200);
      rows = ((await answer.json()) as { data: typeof rows }).data;
      if (rows[0]?.requests === received.requests) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ tenant: 'mixed', model: MODEL, day: today, requests: received.requests });
    // A turn cancelled from another instance is stored as cancelled by that instance, without the tokens the model
    // produced before the cancel reached it; the account charges them (the upstream was paid for them). So the
    // account is what the clients received, plus at most the two cancelled turns' whole answers.
    const row = rows[0] as { input_tokens: number; output_tokens: number };
    expect(row.input_tokens).toBeGreaterThanOrEqual(received.input);
    expect(row.output_tokens).toBeGreaterThanOrEqual(received.output);
    expect(row.input_tokens - received.input + row.output_tokens - received.output).toBeLessThanOrEqual(2 * 220);
    expect(received.requests).toBe(14);
  });

  test('a killed instance’s turn leases come back within their TTL', async () => {
    const c = await startInstance(env);
    // Two slow streamed turns hold the tenant's two slots on c.
    const holders = [0, 1].map(async () => {
      const stream = await client(c, KEY.turns).responses.create({
        model: MODEL,
        input: 'hold the slot [slow] [long]',
        stream: true,
      });
      for await (const _event of stream);
    });
    const full = async () =>
      client(b, KEY.turns)
        .responses.create({ model: MODEL, input: 'one more' })
        .then(
          () => 200,
          (error: Failure) => `${error.status} ${error.code}`,
        );
    let answer: string | number = 200;
    for (let i = 0; i < 50 && answer === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await full();
    }
    expect(answer).toBe('429 too_many_concurrent_requests');
    c.child.kill('SIGKILL');
    await Promise.allSettled(holders);
    const killed = Date.now();
    // Not at once (nothing gave them back), but within the TTL and a renewal's slack.
    expect(await full()).toBe('429 too_many_concurrent_requests');
    let back: string | number = answer;
    while (back !== 200 && Date.now() - killed < LEASE_TTL_MS + 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await full();
    }
    expect(back).toBe(200);
    expect(Date.now() - killed).toBeLessThanOrEqual(LEASE_TTL_MS + 2_000);
    await c.stop();
  });
});
