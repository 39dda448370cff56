import * as z from 'zod/v4';
import type { ModelProvider } from './provider.js';
import type { UpstreamLimits } from '../limits.js';
import type { UpstreamFetch } from './upstream.js';

/**
 * Which model names a provider serves: `{ model }` one name (sent upstream as `upstreamModel`, or
 * unchanged), `{ prefix }` every name starting with it (sent without the prefix, `ollama/llama3.2` ->
 * `llama3.2`), `'any'` every name, unchanged.
 */
export type ModelRoute =
  | {
      /** The model name routed. */
      model: string;
      /** The name sent upstream instead, when it differs. */
      upstreamModel?: string;
    }
  | {
      /** The prefix of the names routed (sent without it, unless `keepPrefix`). */
      prefix: string;
      /** Send names with the prefix (`claude-…` as it is) instead of without it. */
      keepPrefix?: boolean;
    }
  | 'any';

/** Whether `route` serves `model`. */
export function routeServes(route: ModelRoute, model: string): boolean {
  if (route === 'any') return true;
  return 'prefix' in route
    ? model.startsWith(route.prefix) && model.length > route.prefix.length
    : model === route.model;
}

/**
 * The names a route lists on `GET /v1/models`: its one name for a `{ model }` route; else the upstream's
 * `ids` (asked only then), those with the prefix for a `keepPrefix` route, prefixed for a `{ prefix }` route.
 */
export async function routeModelNames(route: ModelRoute, ids: () => Promise<string[]>): Promise<string[]> {
  if (route !== 'any' && 'model' in route) return [route.model];
  const listed = await ids();
  if (route === 'any') return listed;
  return route.keepPrefix ? listed.filter((id) => routeServes(route, id)) : listed.map((id) => `${route.prefix}${id}`);
}

/** The name the upstream knows `model` by. */
export function upstreamModelOf(route: ModelRoute, model: string): string {
  if (route === 'any') return model;
  if ('prefix' in route) return route.keepPrefix ? model : model.slice(route.prefix.length);
  return route.upstreamModel ?? model;
}

/**
 * The route fields every provider family has: the names it serves (`model`, optionally sent upstream as
 * `upstreamModel`, or a `prefix`), the upstream's base URL, the environment variable holding its key (keys
 * are never written in the file), body fields sent when the request does not set them, the upstream
 * timeout and the model's context window. A family adds its own fields beside these.
 */
export const ROUTE_FIELDS = {
  /** The one model name this route serves (give this or `prefix`, not both). */
  model: z.string().min(1).optional(),
  /** Serve every model whose name starts with this; the upstream gets the name without it. */
  prefix: z.string().min(1).optional(),
  /** The upstream's base URL (http or https). */
  url: z.url({ protocol: /^https?$/ }),
  /** The environment variable holding the upstream's key; the key itself is never written in the file. */
  apiKeyEnv: z.string().min(1).optional(),
  /** The name sent upstream for `model`, when the upstream knows it by another (needs `model`). */
  upstreamModel: z.string().min(1).optional(),
  /** Body fields sent upstream when the request does not set them. */
  defaults: z.record(z.string(), z.unknown()).optional(),
  /** How long an upstream call waits for its answer to start, then between two events, in ms (overrides `upstreamIdleMs`). */
  timeoutMs: z.number().int().positive().optional(),
  /** Tokens of context the model accepts, checked before sending and used by `truncation: "auto"` (default: the family's). */
  contextWindow: z.number().int().positive().optional(),
};

/** A parsed route's shared fields. */
export type RouteFields = z.output<z.ZodObject<typeof ROUTE_FIELDS>>;

/** What a provider family gets besides its route: the key read from the environment, and the fetch to call its upstream with. */
export interface UpstreamAccess {
  /** The route's key, read from the variable its `apiKeyEnv` names. */
  apiKey: string | undefined;
  /** Default the global fetch; the Node entry passes `nodeFetch`. */
  fetch: UpstreamFetch | undefined;
  /** The bounds of every upstream call (`ServerLimits`' upstream fields); defaults for those not given. */
  limits?: Partial<UpstreamLimits>;
}

/**
 * A provider family: the route `type` naming it, its own route fields (a Zod shape beside `ROUTE_FIELDS`),
 * and how a parsed route becomes its provider. A family is registered by one entry in `FAMILIES`
 * (`models/routes.ts`).
 */
export interface ProviderFamily<Type extends string = string, Options extends z.ZodRawShape = z.ZodRawShape> {
  /** The route `type` naming the family (`chat-completions`, `anthropic-messages`). */
  readonly type: Type;
  /** The family's own route fields, as a Zod shape. */
  readonly options: Options;
  /** Makes the provider a parsed route describes. */
  create(route: RouteFields & z.output<z.ZodObject<Options>>, upstream: UpstreamAccess): ModelProvider;
}

/** A family, with its types checked (`satisfies` without losing the literal type and the options' shape). */
export function defineFamily<const Type extends string, Options extends z.ZodRawShape>(
  family: ProviderFamily<Type, Options>,
): ProviderFamily<Type, Options> {
  return family;
}

/** The route a parsed route's `model`/`prefix` describe. */
export function modelRouteOf(route: Pick<RouteFields, 'model' | 'prefix' | 'upstreamModel'>): ModelRoute {
  if (route.model !== undefined)
    return route.upstreamModel ? { model: route.model, upstreamModel: route.upstreamModel } : { model: route.model };
  return route.prefix !== undefined ? { prefix: route.prefix } : 'any';
}

/** The name a route's provider shows in logs and `GET /v1/models` (`owned_by`). */
export function routeName(route: Pick<RouteFields, 'model' | 'prefix'>): string | undefined {
  return route.model ?? (route.prefix === undefined ? undefined : `${route.prefix}*`);
}

/**
 * The provider options every family's `create` passes the same way: the route's name, base URL, model route,
 * body defaults, timeout and context window, with the key, fetch and limits it was given. A family spreads
 * these and adds its own fields.
 */
export function routeProviderOptions(route: RouteFields, { apiKey, fetch, limits }: UpstreamAccess) {
  return {
    fetch,
    limits,
    apiKey,
    name: routeName(route),
    baseUrl: route.url,
    route: modelRouteOf(route),
    defaults: route.defaults,
    timeoutMs: route.timeoutMs,
    contextWindow: route.contextWindow,
  };
}

/**
 * The base URL an environment variable names (`fallback` when unset or empty). Throws, naming the variable
 * and an `example`, when it is not an http(s) URL: the server then refuses to start.
 */
export function environmentUrl(
  env: Record<string, string | undefined>,
  variable: string,
  example: string,
  fallback: string,
): string;
export function environmentUrl(
  env: Record<string, string | undefined>,
  variable: string,
  example: string,
): string | undefined;
export function environmentUrl(
  env: Record<string, string | undefined>,
  variable: string,
  example: string,
  fallback?: string,
): string | undefined {
  const url = env[variable] || fallback;
  if (url === undefined) return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new Error(`${variable} '${url}' is not an http(s) URL (expected ${example})`);
  return url;
}
