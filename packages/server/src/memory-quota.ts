// The in-memory quota backend (the default without Redis): one process, a map per rate, lease kind and account,
// pruned once a day as Redis lets its keys expire.
import {
  daysBetween,
  gcra,
  type LeaseKind,
  MAX_MODEL_NAME,
  MAX_MODELS_PER_DAY,
  MINUTE,
  OTHER_MODEL,
  type Period,
  type QuotaBackend,
  type RateDecision,
  type RateWindow,
  type Settlement,
  type TokenDecision,
  type TokenLimits,
  USAGE_RETENTION_DAYS,
  type UsageQuery,
  type UsageRow,
} from './quota.js';

/** The in-memory backend: one process; a map per rate, lease kind and account. */
export class MemoryQuota implements QuotaBackend {
  private readonly tats = new Map<string, number>();
  private readonly budgets = new Map<string, number>();
  private readonly held = new Map<string, Map<string, number>>();
  private readonly accounts = new Map<string, UsageRow>();
  /** Models accounted per tenant and day (so a settlement never scans the accounts). */
  private readonly modelsPerDay = new Map<string, number>();
  private leaseCounter = 0;
  /** The day the maps were last pruned: past budgets and accounts older than the retention are dropped daily. */
  private prunedOn = '';

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Once a day, what the Redis backend lets expire: day budgets before yesterday, month budgets before last
   * month, per-day model counts before yesterday, and usage accounts older than `USAGE_RETENTION_DAYS`.
   */
  private prune(period: Period): void {
    if (period.day === this.prunedOn) return;
    this.prunedOn = period.day;
    const dayStart = period.dayEndsAt - 86_400_000;
    const yesterday = new Date(dayStart - 86_400_000).toISOString().slice(0, 10);
    const lastMonth = new Date(Date.UTC(Number(period.month.slice(0, 4)), Number(period.month.slice(5, 7)) - 2, 1))
      .toISOString()
      .slice(0, 7);
    const oldest = new Date(dayStart - USAGE_RETENTION_DAYS * 86_400_000).toISOString().slice(0, 10);
    for (const key of this.budgets.keys()) {
      const when = key.slice(key.lastIndexOf(':') + 1);
      if (key.startsWith('d:') ? when < yesterday : when < lastMonth) this.budgets.delete(key);
    }
    for (const key of this.modelsPerDay.keys())
      if (key.slice(key.lastIndexOf('\n') + 1) < yesterday) this.modelsPerDay.delete(key);
    for (const [key, row] of this.accounts) if (row.day < oldest) this.accounts.delete(key);
  }

  async takeRequest(tenant: string, perMinute: number): Promise<RateDecision> {
    const result = gcra(this.tats.get(`r:${tenant}`) ?? 0, this.now(), perMinute, 1);
    this.tats.set(`r:${tenant}`, result.tat);
    return { allowed: result.allowed, window: result.window, retryAfterMs: result.retryAfterMs };
  }

  async reserveTokens(tenant: string, tokens: number, limits: TokenLimits, period: Period): Promise<TokenDecision> {
    this.prune(period);
    const now = this.now();
    const { dayKey, monthKey } = this.budgetKeys(tenant, period);
    if (limits.dailyTokens !== undefined && (this.budgets.get(dayKey) ?? 0) >= limits.dailyTokens)
      return { allowed: false, refusal: 'daily', retryAfterMs: period.dayEndsAt - now };
    if (limits.monthlyTokens !== undefined && (this.budgets.get(monthKey) ?? 0) >= limits.monthlyTokens)
      return { allowed: false, refusal: 'monthly', retryAfterMs: period.monthEndsAt - now };
    let window: RateWindow | undefined;
    if (limits.tokensPerMinute !== undefined) {
      const result = gcra(
        this.tats.get(`t:${tenant}`) ?? 0,
        now,
        limits.tokensPerMinute,
        Math.min(tokens, limits.tokensPerMinute),
      );
      if (!result.allowed)
        return {
          allowed: false,
          refusal: 'tokens_per_minute',
          window: result.window,
          retryAfterMs: result.retryAfterMs,
        };
      this.tats.set(`t:${tenant}`, result.tat);
      window = result.window;
    }
    this.budgets.set(dayKey, (this.budgets.get(dayKey) ?? 0) + tokens);
    this.budgets.set(monthKey, (this.budgets.get(monthKey) ?? 0) + tokens);
    return { allowed: true, window, retryAfterMs: 0 };
  }

  async settle(tenant: string, settlement: Settlement): Promise<void> {
    this.settleNow(tenant, settlement);
  }

  /**
   * `settle` without its promise: this process's memory waits for nothing, so `TenantQuota` settles a turn's
   * usage here at once when this is its backend.
   * @internal
   */
  settleNow(tenant: string, { reserved, usage, model, period, limits }: Settlement): void {
    this.prune(period);
    const now = this.now();
    const used = usage.inputTokens + usage.outputTokens;
    const change = used - reserved;
    const { dayKey: dayBudget, monthKey: monthBudget } = this.budgetKeys(tenant, period);
    this.budgets.set(dayBudget, Math.max(0, (this.budgets.get(dayBudget) ?? 0) + change));
    this.budgets.set(monthBudget, Math.max(0, (this.budgets.get(monthBudget) ?? 0) + change));
    if (limits.tokensPerMinute !== undefined) {
      const cap = limits.tokensPerMinute;
      // The rate was charged the reservation capped at the limit: correct it to what was used (never below now).
      const charged = Math.min(reserved, cap);
      const tat = this.tats.get(`t:${tenant}`) ?? now;
      this.tats.set(`t:${tenant}`, Math.max(now, tat + ((used - charged) * MINUTE) / cap));
    }
    if (model === undefined) return;
    // The last account settled is found without building its key: turns in a row are mostly one tenant's and model's.
    const recent = this.recentAccount;
    if (recent && recent.tenant === tenant && recent.model === model && recent.row.day === period.day) {
      addUsage(recent.row, usage);
      return;
    }
    const dayKey = `${tenant}\n${period.day}`;
    const cut = model.slice(0, MAX_MODEL_NAME);
    const known = this.accounts.has(`${tenant}\n${cut}\n${period.day}`);
    const name = known || (this.modelsPerDay.get(dayKey) ?? 0) < MAX_MODELS_PER_DAY ? cut : OTHER_MODEL;
    const key = `${tenant}\n${name}\n${period.day}`;
    if (!this.accounts.has(key)) this.modelsPerDay.set(dayKey, (this.modelsPerDay.get(dayKey) ?? 0) + 1);
    const row = this.accounts.get(key) ?? {
      tenant,
      model: name,
      day: period.day,
      requests: 0,
      inputTokens: 0,
      cachedTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    };
    addUsage(row, usage);
    this.accounts.set(key, row);
    this.recentAccount = { tenant, model, row };
  }

  /** The keys of a tenant's day and month budgets (the last ones are kept, with their hashes). */
  private budgetKeys(tenant: string, period: Period): { dayKey: string; monthKey: string } {
    const recent = this.recentBudgets;
    if (recent?.tenant === tenant && recent.day === period.day && recent.month === period.month) return recent;
    this.recentBudgets = {
      tenant,
      day: period.day,
      month: period.month,
      dayKey: `d:${tenant}:${period.day}`,
      monthKey: `m:${tenant}:${period.month}`,
    };
    return this.recentBudgets;
  }
  private recentBudgets: { tenant: string; day: string; month: string; dayKey: string; monthKey: string } | undefined;

  /** The account `settle` wrote last, and the tenant and model name it was asked for. */
  private recentAccount: { tenant: string; model: string; row: UsageRow } | undefined;

  async acquireLease(tenant: string, kind: LeaseKind, max: number, ttlMs: number): Promise<string | undefined> {
    const leases = this.live(tenant, kind);
    if (leases.size >= max) return undefined;
    const lease = `lease_${++this.leaseCounter}`;
    leases.set(lease, this.now() + ttlMs);
    return lease;
  }

  async renewLease(tenant: string, kind: LeaseKind, lease: string, ttlMs: number): Promise<void> {
    this.live(tenant, kind).set(lease, this.now() + ttlMs);
  }

  async releaseLease(tenant: string, kind: LeaseKind, lease: string): Promise<void> {
    this.live(tenant, kind).delete(lease);
  }

  async leases(tenant: string, kind: LeaseKind): Promise<number> {
    return this.live(tenant, kind).size;
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const days = new Set(daysBetween(query.from, query.to));
    const tenants = new Set(query.tenants);
    return [...this.accounts.values()]
      .filter((row) => tenants.has(row.tenant) && days.has(row.day))
      .map((row) => ({ ...row }));
  }

  /** The tenant's leases of a kind, lapsed ones dropped. */
  private live(tenant: string, kind: LeaseKind): Map<string, number> {
    const key = `${kind}:${tenant}`;
    let leases = this.held.get(key);
    if (!leases) this.held.set(key, (leases = new Map()));
    const now = this.now();
    for (const [lease, expires] of leases) if (expires <= now) leases.delete(lease);
    return leases;
  }
}

/** Adds one turn's usage to an account. */
function addUsage(row: UsageRow, usage: Settlement['usage']): void {
  row.requests += 1;
  row.inputTokens += usage.inputTokens;
  row.cachedTokens += usage.cachedTokens;
  row.outputTokens += usage.outputTokens;
  row.reasoningTokens += usage.reasoningTokens;
}
