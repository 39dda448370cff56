// Tenants as configuration on the real server: the tenants file's checks (one line each), the memory quota
// backend against the quota contract, and each limit as clients see it through the official openai package,
// raw SSE and a WebSocket: x-ratelimit-* headers, 429 rate_limit_exceeded with Retry-After,
// insufficient_quota, models a tenant may not use, and the usage endpoint equal to the usage clients received.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import {
  MAX_MODELS_PER_DAY,
  MemoryQuota,
  OTHER_MODEL,
  periodOf,
  resolveTenants,
  TenantsConfigError,
  USAGE_RETENTION_DAYS,
} from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { describeQuotaContract } from '../src/testing/index.js';
import { startTestServer, stream } from './harness.js';

const sha256 = async (text: string) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');

describeQuotaContract('memory', { create: async () => new MemoryQuota() }, { describe, test, expect });

test('the memory backend keeps usage for USAGE_RETENTION_DAYS and budgets for their period: its maps stay bounded', async () => {
  let now = Date.UTC(2026, 0, 1, 12);
  const quota = new MemoryQuota(() => now);
  const limits = { dailyTokens: 1_000_000, monthlyTokens: 100_000_000 };
  const usage = { inputTokens: 3, cachedTokens: 1, outputTokens: 2, reasoningTokens: 0 };
  const first = periodOf(now).day;
  // Two years of days, two tenants, three models a day.
  for (let day = 0; day < 730; day++, now += 86_400_000) {
    const period = periodOf(now);
    for (const tenant of ['acme', 'beta']) {
      expect((await quota.reserveTokens(tenant, 10, limits, period)).allowed).toBe(true);
      for (const model of ['m1', 'm2', 'm3'])
        await quota.settle(tenant, { reserved: 10 / 3, usage, model, period, limits });
    }
  }
  const today = periodOf(now - 86_400_000).day;
  const dayOf = (daysBack: number) => new Date(Date.parse(today) - daysBack * 86_400_000).toISOString().slice(0, 10);
  const daysIn = async (from: string, to: string) =>
    [...new Set((await quota.usage({ tenants: ['acme'], from, to })).map((row) => row.day))].sort();
  // The retention, counted back from the last day settled, and nothing before it.
  expect(await daysIn(dayOf(399), today)).toHaveLength(400);
  expect((await daysIn(dayOf(USAGE_RETENTION_DAYS + 10), dayOf(USAGE_RETENTION_DAYS - 10)))[0]).toBe(
    dayOf(USAGE_RETENTION_DAYS),
  );
  expect(await daysIn(first, dayOf(USAGE_RETENTION_DAYS + 1))).toEqual([]);
  const rows = await quota.usage({ tenants: ['acme'], from: today, to: today });
  expect(rows.filter((row) => row.day === today)).toEqual(
    ['m1', 'm2', 'm3'].map((model) => ({ tenant: 'acme', model, day: today, requests: 1, ...usage })),
  );
  // Inside: budgets of today and yesterday, this month and last, per tenant; model counts likewise.
  const sizes = quota as unknown as { budgets: Map<string, number>; modelsPerDay: Map<string, number> };
  expect(sizes.budgets.size).toBeLessThanOrEqual(2 * 4);
  expect(sizes.modelsPerDay.size).toBeLessThanOrEqual(2 * 2);
});

test('the memory backend accounts turns in a row, interleaved models, a new day and models past the cap each in their own row', async () => {
  let now = Date.UTC(2026, 0, 1, 12);
  const quota = new MemoryQuota(() => now);
  const usage = { inputTokens: 3, cachedTokens: 1, outputTokens: 2, reasoningTokens: 0 };
  const settle = (model: string) =>
    quota.settle('acme', { reserved: 0, usage, model, period: periodOf(now), limits: {} });
  const requests = async (day: string) =>
    Object.fromEntries(
      (await quota.usage({ tenants: ['acme'], from: day, to: day })).map((row) => [row.model, row.requests]),
    );
  const first = periodOf(now).day;
  for (const model of ['a', 'a', 'b', 'a', 'b', 'b']) await settle(model);
  expect(await requests(first)).toEqual({ a: 3, b: 3 });
  now += 86_400_000;
  await settle('a');
  expect(await requests(periodOf(now).day)).toEqual({ a: 1 });
  expect(await requests(first)).toEqual({ a: 3, b: 3 });
  // Past MAX_MODELS_PER_DAY models a day, new names go to (other), and known ones keep their rows.
  for (let i = 0; i < MAX_MODELS_PER_DAY; i++) await settle(`m${i}`);
  for (const model of ['late', 'late', 'a', 'late']) await settle(model);
  const counts = await requests(periodOf(now).day);
  // `a` was the day's first model, so the last `m…` is past the cap too, and `late` three times.
  expect(counts[OTHER_MODEL]).toBe(1 + 3);
  expect(counts.a).toBe(2);
  expect(counts.late).toBeUndefined();
});

test('periodOf: the UTC day and month of any moment, its kept answer too', () => {
  const endOfMonth = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
  const expected = {
    day: '2026-11-30',
    month: '2026-11',
    dayEndsAt: Date.UTC(2026, 11, 1),
    monthEndsAt: Date.UTC(2026, 11, 1),
  };
  expect(periodOf(endOfMonth)).toEqual(expected);
  expect(periodOf(Date.UTC(2026, 10, 30))).toEqual(expected); // the day's first moment, from the kept answer
  expect(periodOf(endOfMonth + 1)).toEqual({
    day: '2026-12-01',
    month: '2026-12',
    dayEndsAt: Date.UTC(2026, 11, 2),
    monthEndsAt: Date.UTC(2027, 0, 1),
  });
  expect(periodOf(Date.UTC(2026, 10, 30) - 1).day).toBe('2026-11-29'); // before the kept day
  expect(Object.isFrozen(periodOf(endOfMonth))).toBe(true);
});

describe('the tenants file', () => {
  const valid = async () => ({ tenants: [{ name: 'acme', keys: [{ sha256: await sha256('k1') }] }] });
  const problem = async (file: unknown, env: Record<string, string> = {}) => {
    const error = await resolveTenants(file, env).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TenantsConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  };

  test('resolves keys to digests, from the file or from the environment', async () => {
    const directory = await resolveTenants(
      {
        tenants: [
          { name: 'acme', keys: [{ sha256: (await sha256('k1')).toUpperCase() }, { env: 'ACME_KEY' }] },
          { name: 'beta', keys: [{ env: 'BETA_KEY' }], limits: { requestsPerMinute: 5 }, models: ['gpt-*'] },
        ],
        prices: { m: { input: 1, output: 2 } },
      },
      { ACME_KEY: 'k2', BETA_KEY: 'k3' },
    );
    expect(directory.keyDigests.get(await sha256('k1'))).toBe('acme');
    expect(directory.keyDigests.get(await sha256('k2'))).toBe('acme');
    expect(directory.keyDigests.get(await sha256('k3'))).toBe('beta');
    expect(directory.tenants.get('beta')).toEqual({
      name: 'beta',
      limits: { requestsPerMinute: 5 },
      models: ['gpt-*'],
    });
    expect(directory.defaultReservation).toBe(4096);
    expect(JSON.stringify([...directory.keyDigests])).not.toMatch(/k2|k3/);
  });

  test('the tenants file of docs/run-many-tenants.md is valid', async () => {
    const guide = readFileSync(new URL('../../../docs/run-many-tenants.md', import.meta.url), 'utf8');
    const file = JSON.parse(/```json\n([\s\S]*?)```/.exec(guide)![1]!);
    const directory = await resolveTenants(file, { ACME_KEY: 'a', BETA_KEY: 'b' });
    expect([...directory.tenants.keys()]).toEqual(['acme', 'beta']);
    expect(directory.keyDigests.get(await sha256('test'))).toBe('acme');
  });

  test('every mistake is one line naming where it is', async () => {
    expect(await problem({ tenants: [{ name: 'acme', keys: ['sk-in-clear'] }] })).toMatch(
      /^tenants\[0\]\.keys\[0\]: keys are not written in the tenants file/,
    );
    expect(await problem({ tenants: [{ name: 'acme', keys: [{ key: 'sk' }] }] })).toMatch(/^tenants\[0\]\.keys\[0\]:/);
    expect(await problem({ tenants: [{ name: 'acme', keys: [{ sha256: 'abc' }] }] })).toMatch(
      /^tenants\[0\]\.keys\[0\]/,
    );
    expect(await problem({ tenants: [{ name: 'acme', keys: [{ env: 'MISSING' }] }] })).toBe(
      'tenants[0].keys[0].env: the environment variable MISSING is not set.',
    );
    expect(await problem({ tenants: [{ name: 'a{b}', keys: [{ env: 'X' }] }] }, { X: 'x' })).toMatch(
      /^tenants\[0\]\.name: expected 1-64 letters/,
    );
    const file = await valid();
    expect(await problem({ tenants: [...file.tenants, ...file.tenants] })).toMatch(
      /^tenants\[1\]\.name: 'acme' is named twice/,
    );
    expect(await problem({ tenants: [file.tenants[0], { name: 'other', keys: file.tenants[0]!.keys }] })).toMatch(
      /^tenants\[1\]\.keys\[0\]: the same key is already a key of tenant 'acme'/,
    );
    expect(await problem({ tenants: [{ ...file.tenants[0], limits: { requestsPerMinute: -1 } }] })).toMatch(
      /^tenants\[0\]\.limits\.requestsPerMinute:/,
    );
    expect(await problem({ tenants: [{ ...file.tenants[0], limits: { rpm: 1 } }] })).toMatch(/^tenants\[0\]\.limits:/);
    expect(await problem({ tenant: [] })).toMatch(/^tenants: /);
  });
});

describe('tenant limits on the real server', () => {
  let server: RunningServer;
  const ADMIN = 'admin-key-0123456789';
  const keys = {
    limited: 'key-limited-0123',
    budget: 'key-budget-0123',
    tpm: 'key-tpm-0123',
    counted: 'key-counted-0123',
  };
  const client = (key: string) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: key, maxRetries: 0 });
  const model = 'openresponses-deterministic';

  beforeAll(async () => {
    const directory = await resolveTenants(
      {
        tenants: [
          {
            name: 'limited',
            keys: [{ sha256: await sha256(keys.limited) }],
            limits: { requestsPerMinute: 4 },
            models: ['openresponses-*'],
          },
          { name: 'budget', keys: [{ env: 'BUDGET_KEY' }], limits: { dailyTokens: 200 }, models: [model] },
          { name: 'tpm', keys: [{ sha256: await sha256(keys.tpm) }], limits: { tokensPerMinute: 100 } },
          { name: 'counted', keys: [{ sha256: await sha256(keys.counted) }] },
        ],
        prices: { [model]: { input: 1, output: 4 } },
      },
      { BUDGET_KEY: keys.budget },
    );
    server = await startTestServer({ tenantDirectory: directory, adminKey: ADMIN });
  });
  afterAll(() => server.close());

  test('requests per minute: the headers count down, then 429 rate_limit_exceeded with Retry-After', async () => {
    const seen: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const { response } = await client(keys.limited).responses.create({ model, input: 'hi' }).withResponse();
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('4');
      seen.push(response.headers.get('x-ratelimit-remaining-requests'));
      expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+ms|[\d.]+s|\d+m[\d.]+s)$/);
    }
    expect(seen).toEqual(['3', '2', '1', '0']);
    const refused = await client(keys.limited)
      .responses.create({ model, input: 'hi' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    const error = refused as InstanceType<typeof OpenAI.RateLimitError>;
    expect(error.code).toBe('rate_limit_exceeded');
    // One request refills every 15 s.
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(error.headers?.get('retry-after'))).toBeLessThanOrEqual(15);
    // Reads count too: the limit is on requests.
    const read = await fetch(`${server.url}/v1/responses/resp_x`, {
      headers: { authorization: `Bearer ${keys.limited}` },
    });
    expect(read.status).toBe(429);
  });

  test('a model outside the tenant’s list is model_not_found', async () => {
    const refused = await client(keys.budget)
      .responses.create({ model: 'scenario', input: 'hi' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
    expect((refused as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  test('tokens per minute: x-ratelimit-*-tokens, then 429 once the reservations use the minute up', async () => {
    const first = await client(keys.tpm).responses.create({ model, input: 'hi', max_output_tokens: 60 }).withResponse();
    expect(first.response.headers.get('x-ratelimit-limit-tokens')).toBe('100');
    // 60 reserved for the output, and a (high) estimate of the input.
    const remaining = Number(first.response.headers.get('x-ratelimit-remaining-tokens'));
    expect(remaining).toBeLessThanOrEqual(40);
    expect(remaining).toBeGreaterThanOrEqual(35);
    const used = first.data.usage!.input_tokens + first.data.usage!.output_tokens;
    expect(used).toBeLessThan(60);
    // The turn used less than it reserved: what it did not use is back, so a second 60 still fits once…
    const between = Date.now();
    const second = await client(keys.tpm)
      .responses.create({ model, input: 'hi', max_output_tokens: 60 })
      .withResponse();
    const after = Number(second.response.headers.get('x-ratelimit-remaining-tokens'));
    expect(after).toBeGreaterThanOrEqual(remaining - used);
    // Plus what refilled meanwhile (100 a minute).
    expect(after).toBeLessThanOrEqual(remaining - used + Math.ceil(((Date.now() - between) / 60_000) * 100) + 1);
    // Turns go on until what they used and reserve would pass the minute's 100 (plus what refilled meanwhile).
    const started = Date.now();
    let total = used + (second.data.usage!.input_tokens + second.data.usage!.output_tokens);
    let refusal: { status?: number; code?: string; headers?: Headers } | undefined;
    for (let i = 0; i < 20 && !refusal; i++) {
      const response = await client(keys.tpm)
        .responses.create({ model, input: 'hi', max_output_tokens: 30 })
        .catch((error: { status?: number; code?: string }) => {
          refusal = error;
          return undefined;
        });
      if (response) total += response.usage!.input_tokens + response.usage!.output_tokens;
    }
    expect(refusal).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(Number(refusal!.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refusal!.headers?.get('x-ratelimit-limit-tokens')).toBe('100');
    expect(total).toBeLessThanOrEqual(100 + Math.ceil(((Date.now() - started) / 60_000) * 100) + 2);
  });

  test('a daily budget: turns run until it is spent, then 429 insufficient_quota', async () => {
    let used = 0;
    let refusal: { status?: number; code?: string } | undefined;
    for (let i = 0; i < 50 && !refusal; i++) {
      const response = await client(keys.budget)
        .responses.create({ model, input: 'Tell me about budgets', max_output_tokens: 20 })
        .catch((error: { status?: number; code?: string }) => {
          refusal = error;
          return undefined;
        });
      if (response) used += response.usage!.input_tokens + response.usage!.output_tokens;
    }
    expect(refusal).toMatchObject({ status: 429, code: 'insufficient_quota' });
    // Spent means used reached the budget; the last admitted turn may pass it by at most its own tokens.
    expect(used).toBeGreaterThanOrEqual(200);
    expect(used).toBeLessThan(200 + 60);
  });

  test('usage per tenant and model equals what clients received over JSON, SSE and WebSocket', async () => {
    const received = { requests: 0, input: 0, output: 0, reasoning: 0 };
    const add = (usage: {
      input_tokens: number;
      output_tokens: number;
      output_tokens_details?: { reasoning_tokens?: number };
    }) => {
      received.requests++;
      received.input += usage.input_tokens;
      received.output += usage.output_tokens;
      received.reasoning += usage.output_tokens_details?.reasoning_tokens ?? 0;
    };
    add((await client(keys.counted).responses.create({ model, input: 'json turn' })).usage!);
    const streamed = await stream(
      server,
      { model, input: 'sse turn [think]' },
      { authorization: `Bearer ${keys.counted}` },
    );
    const completed = streamed.events.at(-1) as { response: { usage: Parameters<typeof add>[0] } };
    add(completed.response.usage);
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${keys.counted}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const done = new Promise<Parameters<typeof add>[0]>((resolve) =>
      socket.on('message', (data) => {
        const event = JSON.parse(String(data)) as { type: string; response?: { usage: Parameters<typeof add>[0] } };
        if (event.type === 'response.completed') resolve(event.response!.usage);
      }),
    );
    socket.send(JSON.stringify({ type: 'response.create', model, input: 'websocket turn' }));
    add(await done);
    socket.close();

    const unauthorized = await fetch(`${server.url}/v1/usage`, {
      headers: { authorization: `Bearer ${keys.counted}` },
    });
    expect(unauthorized.status).toBe(401);
    const today = new Date().toISOString().slice(0, 10);
    const answer = await fetch(`${server.url}/v1/usage?tenant=counted&from=${today}&to=${today}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: Array<Record<string, number | string>> };
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      tenant: 'counted',
      model,
      day: today,
      requests: received.requests,
      input_tokens: received.input,
      output_tokens: received.output,
      output_reasoning_tokens: received.reasoning,
      cost: (received.input * 1 + received.output * 4) / 1_000_000,
    });
    expect(received.reasoning).toBeGreaterThan(0);
    const bad = await fetch(`${server.url}/v1/usage?from=yesterday`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('from');
  });
});
