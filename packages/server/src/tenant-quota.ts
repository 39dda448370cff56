import { asResponsesError, ResponsesError, StoreUnavailableError } from './errors.js';
import { tooManyRequests } from './limits.js';
import {
  insufficientQuota,
  periodOf,
  type QuotaBackend,
  rateLimitExceeded,
  type TokenLimits,
  rateLimitHeaders,
  type Settlement,
  type TurnUsage,
} from './quota.js';
import { MemoryQuota } from './memory-quota.js';
import { countRejection } from './telemetry/metrics.js';
import { countTenantUsage } from './telemetry/tenant-usage.js';
import { modelAllowed, type Tenant, type TenantDirectory } from './tenants.js';

/** What `TenantQuota` takes. */
export interface TenantQuotaOptions {
  /** The tenants file, resolved; without it no tenant has limits (usage is still accounted). */
  directory?: TenantDirectory;
  /** Where rates, leases, budgets and usage live (default: this process's memory). */
  backend?: QuotaBackend;
  /**
   * When the backend cannot be reached: `memory` counts in this process until it can again (with a warning);
   * without it the request fails with 503 `store_unavailable` (never unlimited).
   */
  fallback?: 'memory';
  /** How long a lease outlives an instance that stopped renewing it, in ms (default 30 s; renewed every third of it). */
  leaseTtlMs?: number;
  /** Whether a usage route reads the account (`usage`): with it, a tenants file or a given backend, usage is kept. */
  usageRoute?: boolean;
  /** Called once when the fallback takes over (default `console.warn`). */
  warn?: (message: string) => void;
  now?: () => number;
}

/** A turn that was admitted: the headers its answer carries, and what ends it with its response's usage. */
export interface AdmittedTurn {
  headers: Record<string, string>;
  /**
   * Gives back the lease and reservation and accounts the usage (`usage` undefined: the turn produced no
   * response); undefined when that was done at once (nothing leased or reserved, in this process's memory).
   */
  end(usage: { model: string; usage: TurnUsage } | undefined): Promise<void> | undefined;
}

/**
 * Every per-tenant limit, in one place that HTTP requests, WebSocket connections and every turn (JSON, SSE,
 * WebSocket, background, chat completions) go through: requests per minute, turns in flight and connections
 * as leases, tokens per minute and budgets reserved at a turn's start and settled at its end, and the usage
 * account. Backend failures follow the store's rule: 503, or the configured in-memory fallback.
 */
export class TenantQuota {
  private readonly backend: QuotaBackend;
  private readonly fallback: QuotaBackend | undefined;
  /**
   * Whether anything can read the usage account: the usage route, budgets of the tenants file, or another
   * instance sharing the backend. Where nothing can (`npm start`), a turn of a key with no limits settles nothing
   * (its usage metrics are still counted).
   */
  private readonly usageRead: boolean;
  private readonly ttl: number;
  private readonly now: () => number;
  private warned = false;

  constructor(private readonly options: TenantQuotaOptions = {}) {
    this.now = options.now ?? Date.now;
    this.backend = options.backend ?? new MemoryQuota(this.now);
    this.fallback = options.fallback === 'memory' && options.backend ? new MemoryQuota(this.now) : undefined;
    this.ttl = options.leaseTtlMs ?? 30_000;
    this.usageRead = options.usageRoute === true || options.directory !== undefined || options.backend !== undefined;
  }

  /** The tenant a name stands for in the tenants file, if any. */
  tenant(owner: string): Tenant | undefined {
    return this.options.directory?.tenants.get(owner);
  }

  /** Takes one request from the tenant's rate; answers the `x-ratelimit-*-requests` headers, or throws the 429. */
  async request(owner: string): Promise<Record<string, string>> {
    const perMinute = this.tenant(owner)?.limits.requestsPerMinute;
    if (perMinute === undefined) return {};
    const decision = await this.call((backend) => backend.takeRequest(owner, perMinute));
    if (!decision.allowed) throw refused(rateLimitExceeded('requests', decision.window, decision.retryAfterMs));
    return rateLimitHeaders('requests', decision.window);
  }

  /** Throws the 429 a new WebSocket connection of the tenant would get now. */
  async checkConnection(owner: string): Promise<void> {
    const max = this.tenant(owner)?.limits.webSocketConnections;
    if (max === undefined) return;
    const held = await this.call((backend) => backend.leases(owner, 'connection'));
    if (held >= max) throw refused(tooManyConnections(max));
  }

  /** Takes a connection lease for as long as the connection is open; answers what gives it back. */
  async connection(owner: string): Promise<() => void> {
    const max = this.tenant(owner)?.limits.webSocketConnections;
    if (max === undefined) return () => {};
    const release = await this.lease(owner, 'connection', max);
    if (!release) throw refused(tooManyConnections(max));
    return () => void release();
  }

  /**
   * Admits a turn for `model`: the tenant may use the model, has a turn slot, and has tokens in its rate and
   * budgets for `maxOutputTokens` (or the file's default reservation) plus the input `request` holds (estimated
   * only for a tenant with token limits). Rejects with the 404, 429 or 503. A key that is not a tenant of the tenants file
   * is admitted at once, without a promise.
   */
  startTurn(
    owner: string,
    model: string,
    maxOutputTokens: number | undefined,
    request: RequestText = {},
  ): AdmittedTurn | Promise<AdmittedTurn> {
    const tenant = this.tenant(owner);
    // Not a tenant of the tenants file: every model, no lease, no reservation; only its usage is accounted.
    if (tenant === undefined) return this.accounted(owner);
    return this.limitedTurn(owner, tenant, model, maxOutputTokens, request);
  }

  /** `startTurn` for a tenant of the tenants file. */
  private async limitedTurn(
    owner: string,
    tenant: Tenant,
    model: string,
    maxOutputTokens: number | undefined,
    request: RequestText,
  ): Promise<AdmittedTurn> {
    const limits = tenant.limits;
    if (!modelAllowed(tenant, model))
      throw new ResponsesError(
        'not_found',
        'model_not_found',
        `The model '${model.slice(0, 200)}' does not exist or this API key does not have access to it.`,
        'model',
      );
    const release =
      limits.turnsInFlight === undefined ? async () => {} : await this.lease(owner, 'turn', limits.turnsInFlight);
    if (!release)
      throw refused(
        tooManyRequests(
          'too_many_concurrent_requests',
          `This tenant has ${limits.turnsInFlight} requests running, the most it is allowed; retry when one has finished.`,
          1,
        ),
      );
    const tokenLimits = {
      tokensPerMinute: limits.tokensPerMinute,
      dailyTokens: limits.dailyTokens,
      monthlyTokens: limits.monthlyTokens,
    };
    const limited = Object.values(tokenLimits).some((limit) => limit !== undefined);
    const reserved = limited
      ? (maxOutputTokens ?? this.options.directory?.defaultReservation ?? 4096) + estimateInput(request)
      : 0;
    const headers: Record<string, string> = {};
    if (limited) {
      let decision: Awaited<ReturnType<QuotaBackend['reserveTokens']>>;
      try {
        decision = await this.call((backend) =>
          backend.reserveTokens(owner, reserved, tokenLimits, periodOf(this.now())),
        );
      } catch (error) {
        await release();
        throw error;
      }
      if (!decision.allowed) {
        await release();
        throw refused(
          decision.refusal === 'tokens_per_minute'
            ? rateLimitExceeded('tokens', decision.window!, decision.retryAfterMs)
            : insufficientQuota(decision.refusal === 'monthly' ? 'monthly' : 'daily', decision.retryAfterMs),
        );
      }
      if (decision.window) Object.assign(headers, rateLimitHeaders('tokens', decision.window));
    }
    let ended = false;
    return {
      headers,
      end: async (result) => {
        if (ended) return;
        ended = true;
        await release();
        await this.settle(owner, result, reserved, tokenLimits);
      },
    };
  }

  /** A turn with nothing leased or reserved: its end accounts the usage of the response it produced. */
  private accounted(owner: string): AdmittedTurn {
    let ended = false;
    return {
      headers: NO_HEADERS,
      end: (result) => {
        if (ended) return undefined;
        ended = true;
        return this.settle(owner, result, 0, NO_TOKEN_LIMITS);
      },
    };
  }

  /**
   * Counts a turn's usage and settles it with the backend, its reservation corrected to what was used: at once
   * (undefined) when the backend is this process's memory, else through the backend's promise.
   */
  private settle(
    owner: string,
    result: Parameters<AdmittedTurn['end']>[0],
    reserved: number,
    limits: TokenLimits,
  ): Promise<void> | undefined {
    if (result) countTenantUsage(owner, result.usage);
    // Nothing reserved, and no usage anyone reads: nothing to settle (~1.5k instructions a turn on `npm start`).
    if (reserved === 0 && (!result || !this.usageRead)) return undefined;
    const settlement: Settlement = {
      reserved,
      usage: result?.usage ?? { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      model: result?.model,
      period: periodOf(this.now()),
      limits,
    };
    const backend = this.backend;
    if (backend instanceof MemoryQuota && backend.settle === MemoryQuota.prototype.settle) {
      backend.settleNow(owner, settlement);
      return undefined;
    }
    return this.call((to) => to.settle(owner, settlement));
  }

  /** The usage accounts of `tenants` for days `from` to `to`. */
  usage(tenants: readonly string[], from: string, to: string) {
    return this.call((backend) => backend.usage({ tenants, from, to }));
  }

  /** A lease renewed every third of its TTL until given back; undefined when `max` are held. */
  private async lease(owner: string, kind: 'turn' | 'connection', max: number) {
    const lease = await this.call((backend) => backend.acquireLease(owner, kind, max, this.ttl));
    if (lease === undefined) return undefined;
    const renewal = setInterval(
      () => void this.call((backend) => backend.renewLease(owner, kind, lease, this.ttl)).catch(() => {}),
      Math.max(50, this.ttl / 3),
    );
    (renewal as { unref?: () => void }).unref?.();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      // A lease that cannot be given back now lapses within its TTL.
      await this.call((backend) => backend.releaseLease(owner, kind, lease)).catch(() => {});
    };
  }

  /** Runs a backend call; a store outage is the 503 (or, with the fallback, the call in memory). */
  private async call<T>(operation: (backend: QuotaBackend) => Promise<T>): Promise<T> {
    try {
      return await operation(this.backend);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // The store's 503 (`store_unavailable`, with the cause kept), as every store failure answers.
      if (!this.fallback) throw asResponsesError(error);
      if (!this.warned) {
        this.warned = true;
        (this.options.warn ?? console.warn)(
          `WARNING: tenant limits cannot reach the store (${error.message}); counting in this instance's memory instead (--store-fallback memory): limits are NOT shared with other instances until it is back.`,
        );
      }
      return operation(this.fallback);
    }
  }
}

/** What a turn request holds of its own text: the input and instructions a token reservation estimates. */
export interface RequestText {
  input?: unknown;
  instructions?: unknown;
}

/**
 * The input tokens a request will cost, estimated high from its text (a token per 4 bytes, markup included), so
 * that a reservation covers the turn and the settlement gives the rest back. Only tenants with token limits pay
 * for the estimate.
 */
function estimateInput(request: RequestText): number {
  const text = (value: unknown) =>
    typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  return Math.ceil((text(request.input).length + text(request.instructions).length) / 4);
}

/** The headers of a turn without limits (shared: readers copy from it). */
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_TOKEN_LIMITS: TokenLimits = Object.freeze({});

function tooManyConnections(max: number) {
  return tooManyRequests(
    'too_many_connections',
    `This tenant has ${max} WebSocket connections open, the most it is allowed; close one or retry later.`,
    1,
  );
}

/** Counts a refusal by its code (the metrics' `openresponses.rejections`) and returns it to be thrown. */
function refused<E extends ResponsesError>(error: E): E {
  countRejection(error.code);
  return error;
}
