import { z } from 'zod';
import { ChatCompletionsProvider } from './chat-completions/provider.js';
import type { UpstreamFetch } from './upstream.js';
import type { ModelProvider } from './provider.js';

/**
 * Gateway configuration: which model names go to which upstream. Each route names one model (`model`,
 * optionally sent upstream as `upstreamModel`) or every model with a `prefix` (sent without it), the
 * provider family (`type`), the upstream's base URL, the environment variable holding its key (keys are
 * never written in the file), and default body settings. Routes are tried in order.
 */
const routeSchema = z
  .strictObject({
    model: z.string().min(1).optional(),
    prefix: z.string().min(1).optional(),
    type: z.enum(['chat-completions']).default('chat-completions'),
    url: z.url({ protocol: /^https?$/ }),
    apiKeyEnv: z.string().min(1).optional(),
    upstreamModel: z.string().min(1).optional(),
    defaults: z.record(z.string(), z.unknown()).optional(),
    maxTokensField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    nativeAllowedTools: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
    contextWindow: z.number().int().positive().optional(),
  })
  .refine((route) => (route.model === undefined) !== (route.prefix === undefined), {
    message: 'a route names exactly one of "model" or "prefix"',
  })
  .refine((route) => route.upstreamModel === undefined || route.model !== undefined, {
    message: '"upstreamModel" needs "model" (a prefix route sends the name without its prefix)',
  });

export const gatewayConfigSchema = z.strictObject({ routes: z.array(routeSchema) });
export type GatewayConfig = z.input<typeof gatewayConfigSchema>;
export type GatewayRoute = z.output<typeof routeSchema>;

/** A configuration mistake, naming where it is (`routes[1].url: …`). */
export class GatewayConfigError extends Error {
  override name = 'GatewayConfigError';
}

/**
 * Provider families by route `type`: a family is one module exporting a provider class, plus one entry
 * here (see the server README, "Adding a provider family").
 */
const FAMILIES: Record<
  GatewayRoute['type'],
  (route: GatewayRoute, apiKey: string | undefined, fetch: UpstreamFetch | undefined) => ModelProvider
> = {
  'chat-completions': (route, apiKey, fetch) =>
    new ChatCompletionsProvider({
      fetch,
      name: route.model ?? `${route.prefix}*`,
      baseUrl: route.url,
      apiKey,
      route: route.model
        ? Object.assign({ model: route.model }, route.upstreamModel ? { upstreamModel: route.upstreamModel } : {})
        : { prefix: route.prefix! },
      defaults: route.defaults,
      maxTokensField: route.maxTokensField,
      nativeAllowedTools: route.nativeAllowedTools,
      timeoutMs: route.timeoutMs,
      contextWindow: route.contextWindow,
    }),
};

/**
 * The providers a configuration describes, in order; keys are read from `env` by the names it gives.
 * `fetch` makes their upstream calls (default the global fetch; the Node entry passes `nodeFetch`).
 */
export function providersFromConfig(
  config: unknown,
  env: Record<string, string | undefined> = {},
  fetch?: UpstreamFetch,
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
    return FAMILIES[route.type](route, apiKey, fetch);
  });
}
