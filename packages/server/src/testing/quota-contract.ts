// The quota contract as tests: any backend passes it to be a QuotaBackend (memory and Redis do). Real time,
// small numbers: a backend may keep its own clock (Redis's TIME).
import { periodOf, type QuotaBackend, type TurnUsage } from '../quota.js';
import type { TestFramework } from './framework.js';

/** What `describeQuotaContract` takes. */
export interface QuotaContractOptions {
  /** A backend; tenants are fresh names per test, so one backend may serve every test. Closed by `close`. */
  create(): Promise<QuotaBackend>;
  /** Closes a backend `create` made, after the test that used it (optional). */
  close?(backend: QuotaBackend): Promise<void>;
}

let counter = 0;
const freshTenant = () => `contract-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
const usage = (input: number, output: number, cached = 0, reasoning = 0): TurnUsage => ({
  inputTokens: input,
  cachedTokens: cached,
  outputTokens: output,
  reasoningTokens: reasoning,
});

/** Registers the contract's tests for one backend, with your test framework's `describe`, `test` and `expect`. */
export function describeQuotaContract(
  name: string,
  options: QuotaContractOptions,
  { describe, test, expect }: TestFramework,
): void {
  const withBackend = (run: (backend: QuotaBackend, tenant: string) => Promise<void>) => async () => {
    const backend = await options.create();
    try {
      await run(backend, freshTenant());
    } finally {
      await options.close?.(backend);
    }
  };

  describe(`${name} quota contract`, () => {
    test(
      'a minute of requests passes at once, the next is refused until one interval has refilled',
      withBackend(async (backend, tenant) => {
        const first = await backend.takeRequest(tenant, 60);
        expect(first).toMatchObject({ allowed: true, window: { limit: 60, remaining: 59 } });
        for (let i = 1; i < 60; i++) expect((await backend.takeRequest(tenant, 60)).allowed).toBe(true);
        const refused = await backend.takeRequest(tenant, 60);
        expect(refused.allowed).toBe(false);
        expect(refused.window.remaining).toBe(0);
        // One request refills each second: the wait is at most that, and the bucket is full again within a minute.
        expect(refused.retryAfterMs).toBeGreaterThan(0);
        expect(refused.retryAfterMs).toBeLessThanOrEqual(1000);
        expect(refused.window.resetMs).toBeGreaterThan(59_000);
        expect(refused.window.resetMs).toBeLessThanOrEqual(60_000);
        // Another tenant has its own rate.
        expect((await backend.takeRequest(`${tenant}-other`, 60)).allowed).toBe(true);
      }),
    );

    test(
      'concurrent checks are atomic: exactly the limit passes',
      withBackend(async (backend, tenant) => {
        const decisions = await Promise.all(Array.from({ length: 100 }, () => backend.takeRequest(tenant, 30)));
        expect(decisions.filter((decision) => decision.allowed)).toHaveLength(30);
      }),
    );

    test(
      'tokens per minute: reserved at the start, corrected to what was used at the end',
      withBackend(async (backend, tenant) => {
        const period = periodOf(Date.now());
        const limits = { tokensPerMinute: 1000 };
        const first = await backend.reserveTokens(tenant, 600, limits, period);
        expect(first).toMatchObject({ allowed: true, window: { limit: 1000, remaining: 400 } });
        const second = await backend.reserveTokens(tenant, 600, limits, period);
        expect(second).toMatchObject({ allowed: false, refusal: 'tokens_per_minute' });
        expect(second.retryAfterMs).toBeGreaterThan(10_000);
        // The first turn used 100 of its 600: the rest returns, and 600 fit again.
        await backend.settle(tenant, { reserved: 600, usage: usage(60, 40), model: 'm', period, limits });
        expect((await backend.reserveTokens(tenant, 600, limits, period)).allowed).toBe(true);
        // A reservation above the limit is charged the limit (it waits for a full minute instead of never passing).
        const huge = `${tenant}-huge`;
        expect((await backend.reserveTokens(huge, 50_000, limits, period)).allowed).toBe(true);
        expect((await backend.reserveTokens(huge, 1, limits, period)).allowed).toBe(false);
      }),
    );

    test(
      'a daily budget refuses once spent (used plus reserved), until the day ends; months alike',
      withBackend(async (backend, tenant) => {
        const period = periodOf(Date.now());
        const limits = { dailyTokens: 1000 };
        expect((await backend.reserveTokens(tenant, 800, limits, period)).allowed).toBe(true);
        expect((await backend.reserveTokens(tenant, 200, limits, period)).allowed).toBe(true);
        const spent = await backend.reserveTokens(tenant, 1, limits, period);
        expect(spent).toMatchObject({ allowed: false, refusal: 'daily' });
        expect(spent.retryAfterMs).toBeGreaterThan(0);
        expect(spent.retryAfterMs).toBeLessThanOrEqual(period.dayEndsAt - Date.now() + 1000);
        // The turns used less than they reserved: the budget has room again.
        await backend.settle(tenant, { reserved: 800, usage: usage(100, 100), model: 'm', period, limits });
        expect((await backend.reserveTokens(tenant, 100, limits, period)).allowed).toBe(true);
        // Tomorrow is a new day.
        const tomorrow = periodOf(period.dayEndsAt + 1000);
        if (tomorrow.month === period.month)
          expect((await backend.reserveTokens(tenant, 100, limits, tomorrow)).allowed).toBe(true);
        const monthly = { monthlyTokens: 500 };
        const other = `${tenant}-m`;
        expect((await backend.reserveTokens(other, 500, monthly, period)).allowed).toBe(true);
        expect(await backend.reserveTokens(other, 1, monthly, period)).toMatchObject({
          allowed: false,
          refusal: 'monthly',
        });
      }),
    );

    test(
      'leases: at most max held, given back on release, lapsed after their TTL unless renewed',
      withBackend(async (backend, tenant) => {
        const taken = await Promise.all(
          Array.from({ length: 12 }, () => backend.acquireLease(tenant, 'turn', 5, 60_000)),
        );
        const held = taken.filter((lease) => lease !== undefined) as string[];
        expect(held).toHaveLength(5);
        expect(new Set(held).size).toBe(5);
        expect(await backend.leases(tenant, 'turn')).toBe(5);
        // Kinds are counted apart.
        expect(await backend.acquireLease(tenant, 'connection', 1, 60_000)).toBeDefined();
        await backend.releaseLease(tenant, 'turn', held[0]!);
        expect(await backend.leases(tenant, 'turn')).toBe(4);
        expect(await backend.acquireLease(tenant, 'turn', 5, 60_000)).toBeDefined();
        const short = `${tenant}-ttl`;
        const kept = (await backend.acquireLease(short, 'turn', 2, 300))!;
        expect(await backend.acquireLease(short, 'turn', 2, 300)).toBeDefined();
        expect(await backend.acquireLease(short, 'turn', 2, 300)).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await backend.renewLease(short, 'turn', kept, 1000);
        await new Promise((resolve) => setTimeout(resolve, 250));
        // The one renewed is still held; the other lapsed.
        expect(await backend.leases(short, 'turn')).toBe(1);
        expect(await backend.acquireLease(short, 'turn', 2, 300)).toBeDefined();
      }),
    );

    test(
      'usage is summed per tenant, model and day; a turn without a response gives back its reservation only',
      withBackend(async (backend, tenant) => {
        const period = periodOf(Date.now());
        const limits = {};
        await backend.settle(tenant, { reserved: 0, usage: usage(10, 5, 2, 1), model: 'a', period, limits });
        await backend.settle(tenant, { reserved: 0, usage: usage(20, 7, 3, 0), model: 'a', period, limits });
        await backend.settle(tenant, { reserved: 0, usage: usage(1, 1), model: 'b', period, limits });
        await backend.settle(tenant, { reserved: 50, usage: usage(0, 0), period, limits });
        await backend.settle(`${tenant}-other`, { reserved: 0, usage: usage(9, 9), model: 'a', period, limits });
        const rows = await backend.usage({ tenants: [tenant], from: period.day, to: period.day });
        const sorted = rows.sort((x, y) => x.model.localeCompare(y.model));
        expect(sorted).toEqual([
          {
            tenant,
            model: 'a',
            day: period.day,
            requests: 2,
            inputTokens: 30,
            cachedTokens: 5,
            outputTokens: 12,
            reasoningTokens: 1,
          },
          {
            tenant,
            model: 'b',
            day: period.day,
            requests: 1,
            inputTokens: 1,
            cachedTokens: 0,
            outputTokens: 1,
            reasoningTokens: 0,
          },
        ]);
        expect(await backend.usage({ tenants: [tenant], from: '2001-01-01', to: '2001-01-31' })).toEqual([]);
      }),
    );
  });
}
