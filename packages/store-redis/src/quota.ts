import {
  daysBetween,
  type LeaseKind,
  MAX_MODEL_NAME,
  MAX_MODELS_PER_DAY,
  OTHER_MODEL,
  type Period,
  type QuotaBackend,
  type RateDecision,
  type Settlement,
  type TokenDecision,
  type TokenLimits,
  type UsageQuery,
  type UsageRow,
  USAGE_RETENTION_DAYS,
} from '@openresponses/server';
import { StoreUnavailableError } from '@openresponses/server';
import type { Cluster, Redis } from 'ioredis';
import { ACQUIRE_LEASE, COUNT_LEASES, RENEW_LEASE, RESERVE_TOKENS, SETTLE, TAKE_REQUEST } from './quota-scripts.js';

/** The commands `RedisQuota` runs, defined on each connection by the store (`quota-scripts.ts`). */
export interface QuotaCommands {
  orTakeRequest(rate: string, limit: string): Promise<number[]>;
  orReserveTokens(rate: string, day: string, month: string, ...args: string[]): Promise<number[]>;
  orSettle(rate: string, day: string, month: string, usage: string, ...args: string[]): Promise<number>;
  orAcquireLease(leases: string, max: string, ttl: string, lease: string): Promise<number>;
  orRenewLease(leases: string, ttl: string, lease: string): Promise<number>;
  orCountLeases(leases: string): Promise<number>;
}

const DAY_MS = 86_400_000;
/** How long usage accounts are kept (as long as every backend keeps them). */
const USAGE_TTL_MS = USAGE_RETENTION_DAYS * DAY_MS;

/**
 * Tenant admission on the store's Redis (`RedisResponseStore.quotaBackend()`): every instance on the same
 * Redis shares each tenant's rates, leases, budgets and usage. Each check is one script; failures are the
 * store's (`StoreUnavailableError`: 503, or the configured fallback).
 */
export class RedisQuota implements QuotaBackend {
  constructor(
    private readonly run: <T>(command: (client: Redis & QuotaCommands) => Promise<T>) => Promise<T>,
    private readonly prefix: string,
  ) {}

  /**
   * Tenant admission on a Redis Cluster (or Valkey cluster) through ioredis's `Cluster` client: each script's keys
   * share the tenant's hash tag, so every check runs in one slot, on the shard that holds the tenant.
   */
  static overCluster(cluster: Cluster, prefix = 'openresponses:'): RedisQuota {
    defineQuotaCommands(cluster);
    return new RedisQuota(async (command) => {
      try {
        return await command(cluster as unknown as Redis & QuotaCommands);
      } catch (error) {
        throw new StoreUnavailableError(`Redis Cluster failed: ${(error as Error).message}`, { cause: error });
      }
    }, prefix);
  }

  async takeRequest(tenant: string, perMinute: number): Promise<RateDecision> {
    const [allowed, remaining, reset, retry] = await this.run((client) =>
      client.orTakeRequest(this.key(tenant, 'rate:requests'), String(perMinute)),
    );
    return {
      allowed: allowed === 1,
      window: { limit: perMinute, remaining: remaining!, resetMs: reset! },
      retryAfterMs: retry!,
    };
  }

  async reserveTokens(tenant: string, tokens: number, limits: TokenLimits, period: Period): Promise<TokenDecision> {
    const [allowed, refusal, remaining, reset, retry] = await this.run((client) =>
      client.orReserveTokens(
        this.key(tenant, 'rate:tokens'),
        this.key(tenant, `budget:${period.day}`),
        this.key(tenant, `budget:${period.month}`),
        String(tokens),
        String(limits.tokensPerMinute ?? -1),
        String(limits.dailyTokens ?? -1),
        String(limits.monthlyTokens ?? -1),
        String(budgetTtl(period.dayEndsAt)),
        String(budgetTtl(period.monthEndsAt)),
      ),
    );
    const window =
      remaining! >= 0 && limits.tokensPerMinute !== undefined
        ? { limit: limits.tokensPerMinute, remaining: remaining!, resetMs: reset! }
        : undefined;
    if (allowed === 1) return { allowed: true, window, retryAfterMs: 0 };
    if (refusal === 2) return { allowed: false, refusal: 'daily', retryAfterMs: period.dayEndsAt - Date.now() };
    if (refusal === 3) return { allowed: false, refusal: 'monthly', retryAfterMs: period.monthEndsAt - Date.now() };
    return { allowed: false, refusal: 'tokens_per_minute', window, retryAfterMs: retry! };
  }

  async settle(tenant: string, { reserved, usage, model, period, limits }: Settlement): Promise<void> {
    await this.run((client) =>
      client.orSettle(
        this.key(tenant, 'rate:tokens'),
        this.key(tenant, `budget:${period.day}`),
        this.key(tenant, `budget:${period.month}`),
        this.key(tenant, `usage:${period.day}`),
        String(reserved),
        String(limits.tokensPerMinute ?? -1),
        model === undefined ? '' : model.slice(0, MAX_MODEL_NAME),
        String(usage.inputTokens),
        String(usage.cachedTokens),
        String(usage.outputTokens),
        String(usage.reasoningTokens),
        String(MAX_MODELS_PER_DAY),
        OTHER_MODEL,
        String(USAGE_TTL_MS),
        String(budgetTtl(period.dayEndsAt)),
        String(budgetTtl(period.monthEndsAt)),
      ),
    );
  }

  async acquireLease(tenant: string, kind: LeaseKind, max: number, ttlMs: number): Promise<string | undefined> {
    const lease = `${crypto.randomUUID()}`;
    const taken = await this.run((client) =>
      client.orAcquireLease(this.key(tenant, `leases:${kind}`), String(max), String(ttlMs), lease),
    );
    return taken === 1 ? lease : undefined;
  }

  async renewLease(tenant: string, kind: LeaseKind, lease: string, ttlMs: number): Promise<void> {
    await this.run((client) => client.orRenewLease(this.key(tenant, `leases:${kind}`), String(ttlMs), lease));
  }

  async releaseLease(tenant: string, kind: LeaseKind, lease: string): Promise<void> {
    await this.run((client) => client.zrem(this.key(tenant, `leases:${kind}`), lease));
  }

  async leases(tenant: string, kind: LeaseKind): Promise<number> {
    return this.run((client) => client.orCountLeases(this.key(tenant, `leases:${kind}`)));
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const days = daysBetween(query.from, query.to);
    const rows: UsageRow[] = [];
    for (const tenant of query.tenants) {
      // One tenant's days are in one slot: one pipelined round trip per tenant.
      const accounts = await this.run((client) =>
        Promise.all(days.map((day) => client.hgetall(this.key(tenant, `usage:${day}`)))),
      );
      for (const [index, fields] of accounts.entries()) {
        const byModel = new Map<string, UsageRow>();
        for (const [field, value] of Object.entries(fields)) {
          const cut = field.lastIndexOf('\n');
          const model = field.slice(0, cut);
          const row = byModel.get(model) ?? {
            tenant,
            model,
            day: days[index]!,
            requests: 0,
            inputTokens: 0,
            cachedTokens: 0,
            outputTokens: 0,
            reasoningTokens: 0,
          };
          const count = Number(value) || 0;
          const name = field.slice(cut + 1);
          if (name === 'requests') row.requests = count;
          else if (name === 'input') row.inputTokens = count;
          else if (name === 'cached') row.cachedTokens = count;
          else if (name === 'output') row.outputTokens = count;
          else if (name === 'reasoning') row.reasoningTokens = count;
          byModel.set(model, row);
        }
        rows.push(...byModel.values());
      }
    }
    return rows;
  }

  /** A key of the tenant; the hash tag keeps all of a tenant's keys in one Redis Cluster slot. */
  private key(tenant: string, rest: string): string {
    return `${this.prefix}quota:{${tenant}}:${rest}`;
  }
}

/** Defines the quota scripts on a connection or a cluster client (each with its declared key count). */
export function defineQuotaCommands(client: Pick<Redis, 'defineCommand'>): void {
  client.defineCommand('orTakeRequest', { numberOfKeys: 1, lua: TAKE_REQUEST });
  client.defineCommand('orReserveTokens', { numberOfKeys: 3, lua: RESERVE_TOKENS });
  client.defineCommand('orSettle', { numberOfKeys: 4, lua: SETTLE });
  client.defineCommand('orAcquireLease', { numberOfKeys: 1, lua: ACQUIRE_LEASE });
  client.defineCommand('orRenewLease', { numberOfKeys: 1, lua: RENEW_LEASE });
  client.defineCommand('orCountLeases', { numberOfKeys: 1, lua: COUNT_LEASES });
}

/** A budget key lives a day past its period's end (instances' clocks may differ a little around midnight). */
function budgetTtl(endsAt: number): number {
  return Math.max(DAY_MS, endsAt - Date.now() + DAY_MS);
}
