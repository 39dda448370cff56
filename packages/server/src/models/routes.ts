import * as z from 'zod/v4';
import { firstIssueLine } from '../errors.js';
import { anthropicMessagesFamily } from './anthropic-messages/family.js';
import { chatCompletionsFamily } from './chat-completions/family.js';
import { openResponsesFamily } from './open-responses/family.js';
import { FALLBACK_BOUNDS, FallbackProvider } from './fallback.js';
import { modelRouteOf, ROUTE_FIELDS, type ProviderFamily, type RouteFields, routeName, routeServes } from './family.js';
import { geminiFamily } from './gemini/family.js';
import type { ModelProvider } from './provider.js';
import type { UpstreamLimits } from '../limits.js';
import type { UpstreamFetch } from './upstream.js';

/**
 * The provider families a route's `type` names: each is one module exporting a `ProviderFamily` (its own
 * route fields and how a route becomes its provider), plus one entry here (see the server README,
 * "Adding a provider family"). The first is the default `type`.
 */
const FAMILIES = [chatCompletionsFamily, anthropicMessagesFamily, geminiFamily, openResponsesFamily] as const;

/**
 * The registered families' route types, in order: the conformance kit and the hostile contract suite
 * (`@openresponses/server/testing`) must each have a renderer for every one (a test holds it).
 */
export const FAMILY_TYPES: readonly string[] = FAMILIES.map((family) => family.type);

type Family = (typeof FAMILIES)[number];
const DEFAULT_FAMILY: Family['type'] = FAMILIES[0].type;

/** One family's route: the shared fields, its `type`, and its own options; unknown fields are refused. */
function routeSchemaOf<F extends Family>(family: F) {
  return z
    .strictObject({
      ...ROUTE_FIELDS,
      /** The provider family that speaks to this upstream (default `chat-completions`). */
      type: z.literal(family.type as F['type']),
      ...(family.options as F['options']),
    })
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

const namesOneTarget = (route: Pick<RouteFields, 'model' | 'prefix'>) =>
  (route.model === undefined) !== (route.prefix === undefined);

/** The `type` of a route with several upstreams. */
const FALLBACK_TYPE = 'fallback';

/** A route or an upstream without `type` is the default family's. */
const withDefaultType = (route: unknown) =>
  route && typeof route === 'object' && !Array.isArray(route) && !('type' in route)
    ? { ...route, type: DEFAULT_FAMILY }
    : route;

/** One upstream of a fallback route: a family's route without `model`/`prefix` (the route's), with a display `name`. */
function upstreamSchemaOf<F extends Family>(family: F) {
  const { model: _model, prefix: _prefix, ...shared } = ROUTE_FIELDS;
  return z.strictObject({
    ...shared,
    name: z.string().regex(UPSTREAM_NAME).optional(),
    type: z.literal(family.type as F['type']),
    ...(family.options as F['options']),
  });
}

/** An upstream's name goes in a response header: short, printable, no separators to confuse a log. */
const UPSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/;
/** Upstreams one fallback route may list. */
export const MAX_ROUTE_UPSTREAMS = 8;

const upstreamSchema = z.preprocess(
  withDefaultType,
  z.discriminatedUnion('type', FAMILIES.map(upstreamSchemaOf) as [ReturnType<typeof upstreamSchemaOf<Family>>]),
);

/**
 * A fallback route: one `model` or `prefix` served by `upstreams` (any families) tried in order, with the
 * bounds of moving between them (models/fallback.ts).
 */
const fallbackRouteSchema = z
  .strictObject({
    /** What answers the route: a provider family (default `chat-completions`), or `fallback` for `upstreams`. */
    type: z.literal(FALLBACK_TYPE),
    /** The one model name this route serves (give this or `prefix`, not both). */
    model: ROUTE_FIELDS.model,
    /** Serve every model whose name starts with this; the upstream gets the name without it. */
    prefix: ROUTE_FIELDS.prefix,
    /** The upstreams (1 to `MAX_ROUTE_UPSTREAMS`, any families), tried in order. */
    upstreams: z.array(upstreamSchema).min(1).max(MAX_ROUTE_UPSTREAMS),
    /** The longest `Retry-After` waited out to ask the same upstream again, in ms (default 1,000, at most 10,000). */
    retryAfterMaxMs: z.number().int().nonnegative().max(FALLBACK_BOUNDS.retryAfterMaxMs.max).optional(),
    /** Failures in a row that open an upstream's circuit (default 3, 1 to 100). */
    breakerFailures: z.number().int().positive().max(FALLBACK_BOUNDS.breakerFailures.max).optional(),
    /** How long an open circuit skips its upstream, in ms (default 30,000, at most 600,000). */
    cooldownMs: z.number().int().nonnegative().max(FALLBACK_BOUNDS.cooldownMs.max).optional(),
  })
  .refine((route) => namesOneTarget(route), {
    message: 'a route names exactly one of "model" or "prefix"',
  })
  .refine((route) => route.model !== undefined || route.upstreams.every((u) => u.upstreamModel === undefined), {
    message: '"upstreamModel" needs the route\'s "model" (a prefix route sends the name without its prefix)',
  })
  .refine((route) => new Set(route.upstreams.map((u, i) => upstreamNameOf(u, i))).size === route.upstreams.length, {
    message: 'the upstreams of a route have different names',
  });

/**
 * A route: one family's (`type`, default `chat-completions`), or a fallback route (`upstreams`; its `type`,
 * `fallback`, may be left out).
 */
const routeSchema = z.preprocess(
  (route) =>
    route && typeof route === 'object' && !Array.isArray(route) && !('type' in route) && 'upstreams' in route
      ? { ...route, type: FALLBACK_TYPE }
      : withDefaultType(route),
  z.discriminatedUnion('type', [
    fallbackRouteSchema,
    ...(FAMILIES.map(routeSchemaOf) as [ReturnType<typeof routeSchemaOf<Family>>]),
  ]),
);

/**
 * Gateway configuration: which model names go to which upstream. Each route names one model (`model`,
 * optionally sent upstream as `upstreamModel`) or every model with a `prefix` (sent without it), the
 * provider family (`type`, default `chat-completions`), the upstream's base URL, the environment variable
 * holding its key (keys are never written in the file), default body settings, and its family's own
 * options. Routes are tried in order.
 */
export const gatewayConfigSchema = z.strictObject({
  /** The routes, tried in order: the first that serves a request's `model` answers it. */
  routes: z.array(routeSchema),
});

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

/** An upstream of a fallback route as written: a family's route without `model`/`prefix`; `type` as in a route. */
export type GatewayUpstreamInput = {
  [F in Family as F['type']]: Omit<z.input<ReturnType<typeof upstreamSchemaOf<F>>>, 'type'> &
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

/** A fallback route as written: `upstreams` tried in order (`type` `fallback` may be left out). */
export type GatewayFallbackRouteInput = Omit<z.input<typeof fallbackRouteSchema>, 'type' | 'upstreams'> & {
  /** `fallback` (may be left out). */
  type?: typeof FALLBACK_TYPE;
  /** The upstreams, tried in order. */
  upstreams: GatewayUpstreamInput[];
};

/** A routing file (`--config`): routes tried in order after the embedded model. */
export type GatewayConfig = {
  /** The routes, in order. */
  routes: Array<GatewayRouteInput | GatewayFallbackRouteInput>;
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
    const hasKey = (entry: unknown) => !!entry && typeof entry === 'object' && 'apiKey' in entry;
    (config as { routes: Array<Record<string, unknown>> }).routes.forEach((route, index) => {
      const upstreams = route && typeof route === 'object' && Array.isArray(route.upstreams) ? route.upstreams : [];
      const inUpstream = upstreams.findIndex(hasKey);
      if (hasKey(route) || inUpstream >= 0)
        throw new GatewayConfigError(
          `routes[${index}]${inUpstream >= 0 ? `.upstreams[${inUpstream}]` : ''}.apiKey: keys are not written in the configuration; put the key in an environment variable and name it in "apiKeyEnv".`,
        );
    });
  }
  const parsed = gatewayConfigSchema.safeParse(config);
  if (!parsed.success) throw new GatewayConfigError(firstIssueLine(parsed.error.issues, 'configuration'));
  const create = (route: RouteFields & { type: string }, where: string) => {
    let apiKey: string | undefined;
    if (route.apiKeyEnv) {
      apiKey = env[route.apiKeyEnv];
      if (!apiKey)
        throw new GatewayConfigError(`${where}.apiKeyEnv: the environment variable ${route.apiKeyEnv} is not set.`);
    }
    const family = FAMILIES.find((f) => f.type === route.type)! as ProviderFamily;
    try {
      return family.create(route, { apiKey, fetch, limits });
    } catch (error) {
      const named = route.apiKeyEnv ? `${where}.apiKeyEnv (${route.apiKeyEnv})` : where;
      throw new GatewayConfigError(`${named}: ${(error as Error).message}`, { cause: error });
    }
  };
  return parsed.data.routes.map((route, index) => {
    if (route.type !== FALLBACK_TYPE) return create(route, `routes[${index}]`);
    const upstreams = route.upstreams.map((upstream, at) => ({
      name: upstreamNameOf(upstream, at),
      provider: create({ ...upstream, model: route.model, prefix: route.prefix }, `routes[${index}].upstreams[${at}]`),
    }));
    const target = modelRouteOf({ model: route.model, prefix: route.prefix });
    return new FallbackProvider(routeName(route) ?? FALLBACK_TYPE, upstreams, (model) => routeServes(target, model), {
      retryAfterMaxMs: route.retryAfterMaxMs,
      breakerFailures: route.breakerFailures,
      cooldownMs: route.cooldownMs,
    });
  });
}

/** The name an upstream of a fallback route shows in the `openresponses-upstream` header: its `name`, or its family and place. */
function upstreamNameOf(upstream: { name?: string; type: string }, index: number): string {
  return upstream.name ?? `${upstream.type}-${index + 1}`;
}
