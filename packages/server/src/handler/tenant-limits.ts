import { invalidRequest } from '../errors.js';
import { json, type ServiceRequest, type ServiceResponse } from '../exchange.js';
import type { TenantQuota } from '../tenant-quota.js';
import type { UsageRow } from '../quota.js';
import type { ModelPrice } from '../tenants.js';
import { constantTimeEqual, unauthorized } from './authentication.js';
import type { Middleware, ServiceHandler } from './middleware.js';

/**
 * The tenant's requests-per-minute (runs after authentication, on every request of a tenant), and the
 * `x-ratelimit-*` headers on its answer: the requests ones from here, the tokens ones from its turn's admission.
 */
export function tenantLimits(quota: TenantQuota): Middleware {
  // Not an async function: a request of no tenant with limits passes with no extra promise.
  return (request, next) => {
    const owner = request.owner;
    // Not a tenant of the tenants file: no limits, so no headers (its turns' admission adds none either).
    if (owner === undefined || quota.tenant(owner) === undefined) return next(request);
    return limitedRequest(quota, owner, request, next);
  };
}

/** A request of a tenant with limits: counted, and answered with the tenant's limit headers. */
async function limitedRequest(quota: TenantQuota, owner: string, request: ServiceRequest, next: ServiceHandler) {
  const headers = await quota.request(owner);
  const response = await next(request);
  Object.assign(response.headers, headers, request.turn?.headers);
  return response;
}

/** `GET /v1/usage`: who may read it and where it comes from. */
export interface UsageRoute {
  /** The operator's key (`Authorization: Bearer <admin key>`); nothing else reads usage. */
  adminKey: string;
  quota: TenantQuota;
  /** The tenants to report when the query names none. */
  tenants(): readonly string[];
  prices: Readonly<Record<string, ModelPrice>>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Usage per tenant, model and UTC day: `?from=YYYY-MM-DD&to=YYYY-MM-DD` (default today, at most 366 days) and
 * `tenant=` (repeatable; default every tenant of the tenants file). Each row has `cost` when the price table
 * names its model.
 */
export async function serveUsage(request: ServiceRequest, route: UsageRoute): Promise<ServiceResponse> {
  const token = /^Bearer\s+(.+)$/i.exec(request.header('authorization') ?? '')?.[1]?.trim() ?? '';
  if (!constantTimeEqual(token, route.adminKey)) throw unauthorized();
  const params = new URLSearchParams(request.query ?? '');
  const today = new Date().toISOString().slice(0, 10);
  const from = params.get('from') ?? today;
  const to = params.get('to') ?? from;
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
      throw invalidRequest(
        'invalid_value',
        `${name} must be a UTC day as YYYY-MM-DD, got '${value.slice(0, 40)}'.`,
        name,
      );
  const span = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  if (span < 0 || span > 365)
    throw invalidRequest('invalid_value', 'from must not be after to, and they span at most 366 days.', 'to');
  const named = params.getAll('tenant');
  if (named.length > 1000) throw invalidRequest('invalid_value', 'At most 1,000 tenant parameters.', 'tenant');
  const rows = await route.quota.usage(named.length > 0 ? named : route.tenants(), from, to);
  rows.sort((a, b) => a.day.localeCompare(b.day) || a.tenant.localeCompare(b.tenant) || a.model.localeCompare(b.model));
  return json(200, { object: 'list', from, to, data: rows.map((row) => withCost(row, route.prices[row.model])) });
}

/** A usage row as the endpoint answers it (snake_case, as OpenAI's usage API), with its cost when priced. */
function withCost(row: UsageRow, price: ModelPrice | undefined) {
  const uncached = Math.max(0, row.inputTokens - row.cachedTokens);
  return {
    object: 'usage.bucket',
    tenant: row.tenant,
    model: row.model,
    day: row.day,
    requests: row.requests,
    input_tokens: row.inputTokens,
    input_cached_tokens: row.cachedTokens,
    output_tokens: row.outputTokens,
    output_reasoning_tokens: row.reasoningTokens,
    ...(price && {
      cost:
        (uncached * price.input +
          row.cachedTokens * (price.cachedInput ?? price.input) +
          row.outputTokens * price.output) /
        1_000_000,
    }),
  };
}
