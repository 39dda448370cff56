import * as z from 'zod/v4';
import { firstIssueLine } from './errors.js';

/**
 * Per-tenant limits from the tenants file. A limit left out is not enforced for the tenant (keys without a
 * tenant keep the server-wide `ServerLimits`). Minute limits are rates (GCRA: a full minute's worth may come at
 * once, then it refills continuously); budgets are calendar periods in UTC.
 */
export interface TenantLimits {
  /** Requests per minute, every request (reads included). */
  requestsPerMinute?: number;
  /** Tokens (input + output) per minute: reserved from `max_output_tokens` when a turn starts, settled at its end. */
  tokensPerMinute?: number;
  /** Turns running at once, over every instance. */
  turnsInFlight?: number;
  /** WebSocket connections open at once, over every instance. */
  webSocketConnections?: number;
  /** Tokens per UTC day; past it turns are refused with `insufficient_quota` until the day ends. */
  dailyTokens?: number;
  /** Tokens per UTC calendar month; past it `insufficient_quota` until the month ends. */
  monthlyTokens?: number;
}

/** Price of a model, in any currency unit, per million tokens (for the usage report's `cost`). */
export interface ModelPrice {
  /** Per million input tokens not served from a cache. */
  input: number;
  /** Per million cached input tokens (default: `input`). */
  cachedInput?: number;
  /** Per million output tokens (reasoning included). */
  output: number;
}

/** One tenant as the server holds it: its keys only as SHA-256 digests. */
export interface Tenant {
  /** Its name (in metrics, usage reports and Redis keys). */
  name: string;
  /** Its limits (empty: none enforced). */
  limits: TenantLimits;
  /** Model names it may use (`prefix*` for a prefix); undefined: every model. */
  models?: readonly string[];
}

/** The tenants file, resolved: who each key is, each tenant's limits, the price table. */
export interface TenantDirectory {
  /** The tenant of each key, by the key's hex SHA-256. */
  readonly keyDigests: ReadonlyMap<string, string>;
  /** Every tenant, by name. */
  readonly tenants: ReadonlyMap<string, Tenant>;
  /** Prices per model name (exact names). */
  readonly prices: Readonly<Record<string, ModelPrice>>;
  /** Tokens a turn reserves when its request sets no `max_output_tokens` (default 4,096). */
  readonly defaultReservation: number;
}

/** A mistake in the tenants file, naming where it is (`tenants[1].keys[0]: …`). */
export class TenantsConfigError extends Error {
  /** `'TenantsConfigError'`. */
  override name = 'TenantsConfigError';
}

const count = z.number().int().nonnegative();
/** Tenant names become metric labels and Redis key parts: short, printable, no braces (Redis Cluster hash tags). */
const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * A key is written as its SHA-256 (`{"sha256": "<64 hex>"}`: the file holds no secret and may be checked in or
 * shared with whoever edits limits; `printf %s "$KEY" | sha256sum` makes one) or as the name of an environment
 * variable that holds it (`{"env": "ACME_KEY"}`: for keys that a secret manager injects). Never in clear.
 */
const keySchema = z.union([
  z.strictObject({
    /** The key's SHA-256, 64 hex digits. */
    sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex digits (the key’s SHA-256)'),
  }),
  z.strictObject({
    /** The name of the environment variable that holds the key. */
    env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'),
  }),
]);

const limitsSchema = z.strictObject({
  /** Requests per minute, every request (reads included). */
  requestsPerMinute: count.positive().optional(),
  /** Tokens (input + output) per minute. */
  tokensPerMinute: count.positive().optional(),
  /** Turns running at once, over every instance. */
  turnsInFlight: count.optional(),
  /** WebSocket connections open at once, over every instance. */
  webSocketConnections: count.optional(),
  /** Tokens per UTC day. */
  dailyTokens: count.optional(),
  /** Tokens per UTC calendar month. */
  monthlyTokens: count.optional(),
});

const priceSchema = z.strictObject({
  /** Per million input tokens not served from a cache. */
  input: z.number().nonnegative(),
  /** Per million cached input tokens (default: `input`). */
  cachedInput: z.number().nonnegative().optional(),
  /** Per million output tokens (reasoning included). */
  output: z.number().nonnegative(),
});

/** The Zod schema of the tenants file (`TenantsFile`); `resolveTenants` checks a file against it. */
export const tenantsFileSchema = z.strictObject({
  /** Every tenant. */
  tenants: z.array(
    z.strictObject({
      /** 1-64 letters, digits, `.`, `_` or `-`, starting with a letter or digit. */
      name: z
        .string()
        .regex(TENANT_NAME, 'expected 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'),
      /** Its API keys (at least one), each as `{"sha256": "<64 hex>"}` or `{"env": "VARIABLE"}`, never in clear. */
      keys: z.array(keySchema).min(1, 'a tenant needs at least one key'),
      /** Its limits; one left out is not enforced. */
      limits: limitsSchema.optional(),
      /** Model names it may use (`prefix*` for a prefix); left out: every model. */
      models: z.array(z.string().min(1)).optional(),
    }),
  ),
  /** Prices per model name (exact names), per million tokens, for the usage report's `cost`. */
  prices: z.record(z.string().min(1), priceSchema).optional(),
  /** Tokens a turn reserves when its request sets no `max_output_tokens` (default 4,096). */
  defaultReservation: z.number().int().positive().optional(),
});

/** The tenants file as written (see `docs/run-many-tenants.md`). */
export type TenantsFile = z.input<typeof tenantsFileSchema>;

/**
 * Checks a parsed tenants file and resolves its keys (`env` ones from `env`) to digests. Throws a
 * `TenantsConfigError` whose message is one line naming the first problem.
 */
export async function resolveTenants(
  file: unknown,
  env: Record<string, string | undefined> = {},
): Promise<TenantDirectory> {
  if (file && typeof file === 'object' && Array.isArray((file as { tenants?: unknown }).tenants))
    for (const [t, tenant] of (file as { tenants: unknown[] }).tenants.entries()) {
      const keys = (tenant as { keys?: unknown } | null)?.keys;
      if (!Array.isArray(keys)) continue;
      const inline = keys.findIndex(
        (key) => typeof key === 'string' || (key && typeof key === 'object' && 'key' in key),
      );
      if (inline >= 0)
        throw new TenantsConfigError(
          `tenants[${t}].keys[${inline}]: keys are not written in the tenants file; write {"sha256": "<hex digest of the key>"} or {"env": "VARIABLE_HOLDING_IT"}.`,
        );
    }
  const parsed = tenantsFileSchema.safeParse(file);
  if (!parsed.success) throw new TenantsConfigError(firstIssueLine(parsed.error.issues, 'tenants file'));
  const keyDigests = new Map<string, string>();
  const tenants = new Map<string, Tenant>();
  for (const [t, tenant] of parsed.data.tenants.entries()) {
    if (tenants.has(tenant.name))
      throw new TenantsConfigError(`tenants[${t}].name: '${tenant.name}' is named twice; each tenant once.`);
    tenants.set(tenant.name, { name: tenant.name, limits: tenant.limits ?? {}, models: tenant.models });
    for (const [k, key] of tenant.keys.entries()) {
      let digest: string;
      if ('sha256' in key) digest = key.sha256.toLowerCase();
      else {
        const value = env[key.env];
        if (!value)
          throw new TenantsConfigError(`tenants[${t}].keys[${k}].env: the environment variable ${key.env} is not set.`);
        digest = await sha256Hex(value);
      }
      const holder = keyDigests.get(digest);
      if (holder !== undefined)
        throw new TenantsConfigError(
          `tenants[${t}].keys[${k}]: the same key is already a key of tenant '${holder}'; a key belongs to one tenant.`,
        );
      keyDigests.set(digest, tenant.name);
    }
  }
  return {
    keyDigests,
    tenants,
    prices: parsed.data.prices ?? {},
    defaultReservation: parsed.data.defaultReservation ?? 4096,
  };
}

/** Whether a tenant may use `model` (its `models` list: exact names, or `prefix*`). */
export function modelAllowed(tenant: Tenant | undefined, model: string): boolean {
  if (!tenant?.models) return true;
  return tenant.models.some((pattern) =>
    pattern.endsWith('*') ? model.startsWith(pattern.slice(0, -1)) : model === pattern,
  );
}

/** Hex SHA-256 of a text (web crypto, so the service runs in any runtime). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
