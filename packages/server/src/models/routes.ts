import * as z from 'zod/v4';
import { anthropicMessagesFamily } from './anthropic-messages/family.js';
import { chatCompletionsFamily } from './chat-completions/family.js';
import { ROUTE_FIELDS, type ProviderFamily, type RouteFields } from './family.js';
import type { ModelProvider } from './provider.js';
import type { UpstreamLimits } from '../limits.js';
import type { UpstreamFetch } from './upstream.js';

/**
 * The provider families a route's `type` names: each is one module exporting a `ProviderFamily` (its own
 * route fields and how a route becomes its provider), plus one entry here (see the server README,
 * "Adding a provider family"). The first is the default `type`.
 */
const FAMILIES = [chatCompletionsFamily, anthropicMessagesFamily] as const;

type Family = (typeof FAMILIES)[number];
const DEFAULT_FAMILY: Family['type'] = FAMILIES[0].type;

/** One family's route: the shared fields, its `type`, and its own options; unknown fields are refused. */
function routeSchemaOf<F extends Family>(family: F) {
  return z
    .strictObject({ ...ROUTE_FIELDS, type: z.literal(family.type as F['type']), ...(family.options as F['options']) })
    .refine((route) => namesOneTarget(route as RouteFields), {
      message: 'a route names exactly one of "model" or "prefix"',
    })
    .refine(
      (route) => (route as RouteFields).upstreamModel === undefined || (route as RouteFields).model !== undefined,
      {
        message: '"upstreamModel" needs "model" (a prefix route sends the name without its prefix)',
      },
    );
}

const namesOneTarget = (route: RouteFields) => (route.model === undefined) !== (route.prefix === undefined);

const routeSchema = z.preprocess(
  // A route without `type` is the default family's.
  (route) =>
    route && typeof route === 'object' && !Array.isArray(route) && !('type' in route)
      ? { ...route, type: DEFAULT_FAMILY }
      : route,
  z.discriminatedUnion('type', FAMILIES.map(routeSchemaOf) as [ReturnType<typeof routeSchemaOf<Family>>]),
);

/**
 * Gateway configuration: which model names go to which upstream. Each route names one model (`model`,
 * optionally sent upstream as `upstreamModel`) or every model with a `prefix` (sent without it), the
 * provider family (`type`, default `chat-completions`), the upstream's base URL, the environment variable
 * holding its key (keys are never written in the file), default body settings, and its family's own
 * options. Routes are tried in order.
 */
export const gatewayConfigSchema = z.strictObject({ routes: z.array(routeSchema) });

/** A route as written: one family's fields; `type` may be left out for the default family. */
export type GatewayRouteInput = {
  [F in Family as F['type']]: Omit<z.input<ReturnType<typeof routeSchemaOf<F>>>, 'type'> &
    (F['type'] extends typeof DEFAULT_FAMILY
      ? {
          /** The provider family (default `chat-completions`). */
          type?: F['type'];
        }
      : {
          /** The provider family. */
          type: F['type'];
        });
}[Family['type']];
/** A routing file (`--config`): routes tried in order after the embedded model. */
export type GatewayConfig = {
  /** The routes, in order. */
  routes: GatewayRouteInput[];
};
/** A route as parsed (defaults applied). */
export type GatewayRoute = z.output<typeof routeSchema>;

/** A configuration mistake, naming where it is (`routes[1].url: …`). */
export class GatewayConfigError extends Error {
  /** `'GatewayConfigError'`. */
  override name = 'GatewayConfigError';
}

/**
 * The providers a configuration describes, in order; keys are read from `env` by the names it gives.
 * `fetch` makes their upstream calls (default the global fetch; the Node entry passes `nodeFetch`), within
 * `limits` (the upstream fields of `ServerLimits`).
 */
export function providersFromConfig(
  config: unknown,
  env: Record<string, string | undefined> = {},
  fetch?: UpstreamFetch,
  limits?: Partial<UpstreamLimits>,
): ModelProvider[] {
  if (config && typeof config === 'object' && Array.isArray((config as { routes?: unknown }).routes)) {
    const inline = (config as { routes: Array<Record<string, unknown>> }).routes.findIndex(
      (route) => route && typeof route === 'object' && 'apiKey' in route,
    );
    if (inline >= 0)
      throw new GatewayConfigError(
        `routes[${inline}].apiKey: keys are not written in the configuration; put the key in an environment variable and name it in "apiKeyEnv".`,
      );
  }
  const parsed = gatewayConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path
      .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
      .join('')
      .replace(/^\./, '');
    throw new GatewayConfigError(`${where || 'configuration'}: ${issue.message}`);
  }
  return parsed.data.routes.map((route, index) => {
    let apiKey: string | undefined;
    if (route.apiKeyEnv) {
      apiKey = env[route.apiKeyEnv];
      if (!apiKey)
        throw new GatewayConfigError(
          `routes[${index}].apiKeyEnv: the environment variable ${route.apiKeyEnv} is not set.`,
        );
    }
    const family = FAMILIES.find((f) => f.type === route.type)! as ProviderFamily;
    try {
      return family.create(route, { apiKey, fetch, limits });
    } catch (error) {
      const where = route.apiKeyEnv ? `routes[${index}].apiKeyEnv (${route.apiKeyEnv})` : `routes[${index}]`;
      throw new GatewayConfigError(`${where}: ${(error as Error).message}`, { cause: error });
    }
  });
}
