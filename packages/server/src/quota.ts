import { ResponsesError } from './errors.js';
import type { TenantLimits } from './tenants.js';

/**
 * Per-tenant admission as one contract with two backends: `MemoryQuota` (one process, the default) and the
 * Redis one in `@openresponses/store-redis` (every instance sharing the store's Redis). Both pass
 * `describeQuotaContract` (`@openresponses/server/testing`).
 *
 * Rates are GCRA (the generic cell rate algorithm: one "theoretical arrival time" per tenant and rate, no
 * counters to sweep) with a burst of one full minute, as OpenAI's limits behave: in any interval of t seconds a
 * tenant is admitted at most `limit + limit * t / 60` requests (or tokens) — the minute's worth it may spend at
 * once plus what refills meanwhile. Nothing beyond that: with Redis every instance's check runs in one script
 * against Redis's clock, so there is no drift between instances and no window boundary to double up on.
 */
export interface QuotaBackend {
  /** Takes one request from the tenant's requests-per-minute rate. */
  takeRequest(tenant: string, perMinute: number): Promise<RateDecision>;
  /**
   * Reserves `tokens` from the tokens-per-minute rate (capped at the limit, so a large reservation waits for a
   * full minute instead of never passing) and from the day's and month's budgets. A budget refuses only once it
   * is spent (used plus reserved reaches it): it is overshot by at most the turns admitted just before that.
   */
  reserveTokens(tenant: string, tokens: number, limits: TokenLimits, period: Period): Promise<TokenDecision>;
  /**
   * A turn's end: gives back its reservation, charges what it used to the rate and the budgets, and adds its
   * usage to the tenant's account for the model and day, in one step.
   */
  settle(tenant: string, settlement: Settlement): Promise<void>;
  /** Takes a lease (a turn in flight, a WebSocket connection) if fewer than `max` are held; it lapses after `ttlMs` unless renewed. */
  acquireLease(tenant: string, kind: LeaseKind, max: number, ttlMs: number): Promise<string | undefined>;
  /** Extends a lease held by this instance (a lapsed one is taken again, even past `max`: the work is already running). */
  renewLease(tenant: string, kind: LeaseKind, lease: string, ttlMs: number): Promise<void>;
  /** Gives a lease back. */
  releaseLease(tenant: string, kind: LeaseKind, lease: string): Promise<void>;
  /** Leases held now (lapsed ones not counted). */
  leases(tenant: string, kind: LeaseKind): Promise<number>;
  /** Usage per tenant, model and day, for days `from` to `to` (`YYYY-MM-DD`, inclusive), of `tenants`. */
  usage(query: UsageQuery): Promise<UsageRow[]>;
}

/** What a lease stands for: a turn in flight or an open WebSocket connection. */
export type LeaseKind = 'turn' | 'connection';
/** The tenant limits that `reserveTokens` and `settle` check: the token rate and the day's and month's budgets. */
export type TokenLimits = Pick<TenantLimits, 'tokensPerMinute' | 'dailyTokens' | 'monthlyTokens'>;

/** The state of a rate after a check, as the `x-ratelimit-*` headers tell it. */
export interface RateWindow {
  /** The rate's limit, per minute. */
  limit: number;
  /** What may still be taken at once now. */
  remaining: number;
  /** Until the rate is full again, in ms. */
  resetMs: number;
}

/** The answer of `takeRequest`. */
export interface RateDecision {
  /** Whether the request is admitted. */
  allowed: boolean;
  /** The requests-per-minute rate after the check. */
  window: RateWindow;
  /** When refused: until the request would pass, in ms. */
  retryAfterMs: number;
}

/** The answer of `reserveTokens`. */
export interface TokenDecision {
  /** Whether the tokens were reserved (and the turn admitted). */
  allowed: boolean;
  /** What refused it. */
  refusal?: 'tokens_per_minute' | 'daily' | 'monthly';
  /** The tokens-per-minute rate, when the tenant has one. */
  window?: RateWindow;
  /** When refused: until it would pass (or the day or month ends, for a budget), in ms; 0 when allowed. */
  retryAfterMs: number;
}

/** The UTC day and month a check or a settlement belongs to, and when each ends. */
export interface Period {
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The UTC month, `YYYY-MM`. */
  month: string;
  /** When the day ends (the next UTC midnight), in ms since the epoch. */
  dayEndsAt: number;
  /** When the month ends (the first of the next UTC month), in ms since the epoch. */
  monthEndsAt: number;
}

/** The tokens a turn used. */
export interface TurnUsage {
  /** Input tokens (cached ones included). */
  inputTokens: number;
  /** Input tokens served from a cache. */
  cachedTokens: number;
  /** Output tokens (reasoning ones included). */
  outputTokens: number;
  /** Output tokens spent reasoning. */
  reasoningTokens: number;
}

/** What `settle` is told of a turn's end. */
export interface Settlement {
  /** What `reserveTokens` reserved (0 when nothing was). */
  reserved: number;
  /** What the turn used (input plus output tokens are charged to the rate and the budgets). */
  usage: TurnUsage;
  /** The model that answered (the response's `model`); undefined when the turn produced no response (nothing is accounted). */
  model?: string;
  /** The period the reservation was made in (whose budgets are corrected). */
  period: Period;
  /** The tenant's token limits (the rate is corrected when it has a tokens-per-minute limit). */
  limits: TokenLimits;
}

/** Which usage `usage` answers. */
export interface UsageQuery {
  /** The tenants, by name. */
  tenants: readonly string[];
  /** The first day, `YYYY-MM-DD` (UTC). */
  from: string;
  /** The last day, `YYYY-MM-DD` (UTC), inclusive. */
  to: string;
}

/** One tenant's usage of one model on one day: the sums of its turns' `TurnUsage`. */
export interface UsageRow extends TurnUsage {
  /** The tenant's name. */
  tenant: string;
  /** The model (cut to `MAX_MODEL_NAME` characters, or `OTHER_MODEL`). */
  model: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Turns settled with this model. */
  requests: number;
}

/** Longest model name an account keeps (longer ones are cut); models past `MAX_MODELS_PER_DAY` count as `(other)`. */
export const MAX_MODEL_NAME = 128;
/** Models a tenant's account keeps apart per day; the usage of further ones goes to `OTHER_MODEL`. */
export const MAX_MODELS_PER_DAY = 256;
/** The model name under which usage past `MAX_MODELS_PER_DAY` models is accounted. */
export const OTHER_MODEL = '(other)';
/** Days of usage accounts kept by every backend (400: a year of daily rows and the month before it). */
export const USAGE_RETENTION_DAYS = 400;
/** A minute in ms: the window of every per-minute rate. */
export const MINUTE = 60_000;

/** The period of a moment (UTC). */
export function periodOf(at: number): Period {
  // Every turn's settlement asks, and the answer changes once a day: the last one is kept (frozen).
  if (lastPeriod && at >= lastPeriod.dayStartsAt && at < lastPeriod.period.dayEndsAt) return lastPeriod.period;
  const date = new Date(at);
  const iso = date.toISOString();
  const period: Period = Object.freeze({
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    dayEndsAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1),
    monthEndsAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  });
  lastPeriod = { period, dayStartsAt: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) };
  return period;
}
let lastPeriod: { period: Period; dayStartsAt: number } | undefined;

/** The days from `from` to `to`, inclusive (at most `max`). */
export function daysBetween(from: string, to: string, max = 400): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${from}T00:00:00Z`); days.length < max; at += 86_400_000) {
    const day = new Date(at).toISOString().slice(0, 10);
    if (day > to) break;
    days.push(day);
  }
  return days;
}

/** The answer of `gcra`. */
export interface GcraResult {
  /** Whether `cost` units pass now. */
  allowed: boolean;
  /** The new theoretical arrival time, in ms (unchanged when refused). */
  tat: number;
  /** The rate after the check. */
  window: RateWindow;
  /** When refused: until `cost` units would pass, in ms; 0 when allowed. */
  retryAfterMs: number;
}

/**
 * GCRA for `limit` units per minute with a one-minute burst: `tat` is the theoretical arrival time. Answers the
 * new `tat` (unchanged when refused). The Redis script (`store-redis/src/quota-scripts.ts`) is this in Lua.
 */
export function gcra(tat: number, now: number, limit: number, cost: number): GcraResult {
  const interval = MINUTE / limit;
  const base = Math.max(tat, now);
  const next = base + cost * interval;
  const allowed = next - now <= MINUTE;
  const held = allowed ? next : base;
  return {
    allowed,
    tat: held,
    window: { limit, remaining: Math.max(0, Math.floor((MINUTE - (held - now)) / interval)), resetMs: held - now },
    retryAfterMs: allowed ? 0 : next - MINUTE - now,
  };
}

/** `1.5s`, `6m0s`, `20ms`: the durations of OpenAI's `x-ratelimit-reset-*` headers. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(3))}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${Number((seconds - minutes * 60).toFixed(3))}s`;
}

/** The `x-ratelimit-*-<what>` headers of a rate. */
export function rateLimitHeaders(what: 'requests' | 'tokens', window: RateWindow): Record<string, string> {
  return {
    [`x-ratelimit-limit-${what}`]: String(window.limit),
    [`x-ratelimit-remaining-${what}`]: String(window.remaining),
    [`x-ratelimit-reset-${what}`]: formatReset(window.resetMs),
  };
}

/** 429 `rate_limit_exceeded` with `Retry-After` (whole seconds, at least 1) and the rate's headers. */
export function rateLimitExceeded(
  what: 'requests' | 'tokens',
  window: RateWindow,
  retryAfterMs: number,
): ResponsesError {
  return new ResponsesError(
    'too_many_requests',
    'rate_limit_exceeded',
    `Rate limit reached: ${window.limit} ${what} per minute for this tenant; retry after the Retry-After seconds.`,
    null,
    429,
    {
      headers: {
        'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
        ...rateLimitHeaders(what, window),
      },
    },
  );
}

/** 429 `insufficient_quota`: the tenant's daily or monthly token budget is spent (`Retry-After`: until it renews). */
export function insufficientQuota(period: 'daily' | 'monthly', retryAfterMs: number): ResponsesError {
  return new ResponsesError(
    'too_many_requests',
    'insufficient_quota',
    `This tenant's ${period} token budget is spent; it renews at the start of the next UTC ${period === 'daily' ? 'day' : 'month'}.`,
    null,
    429,
    { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } },
  );
}
