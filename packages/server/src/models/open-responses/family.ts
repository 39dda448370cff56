import * as z from 'zod/v4';
import type { UpstreamLimits } from '../../limits.js';
import { defineFamily, modelRouteOf, routeName } from '../family.js';
import type { UpstreamFetch } from '../upstream.js';
import { OpenResponsesProvider } from './provider.js';

/**
 * Routes to a native Responses server (`type: "open-responses"`): besides the shared fields (`url` is the
 * base URL ending in `/v1`), `encryptedReasoning` (default true: ask for `reasoning.encrypted_content` so
 * reasoning goes back on the next turn; false for a server that refuses that `include` value, such as
 * early llama.cpp builds).
 */
export const openResponsesFamily = defineFamily({
  type: 'open-responses',
  options: {
    encryptedReasoning: z.boolean().optional(),
  },
  create: (route, { apiKey, fetch, limits }) =>
    new OpenResponsesProvider({
      fetch,
      limits,
      name: routeName(route),
      baseUrl: route.url,
      apiKey,
      route: modelRouteOf(route),
      defaults: route.defaults,
      timeoutMs: route.timeoutMs,
      contextWindow: route.contextWindow,
      encryptedReasoning: route.encryptedReasoning,
    }),
});

/**
 * `OPENRESPONSES_RESPONSES_URL` (the base URL ending in `/v1`) and `OPENRESPONSES_RESPONSES_API_KEY` route
 * every model name no earlier route serves to a Responses server, by its own name; undefined when no URL is
 * set. Throws when the URL is not http(s).
 */
export function responsesFromEnvironment(
  env: Record<string, string | undefined>,
  fetch: UpstreamFetch | undefined,
  limits?: Partial<UpstreamLimits>,
): OpenResponsesProvider | undefined {
  const url = env.OPENRESPONSES_RESPONSES_URL;
  if (!url) return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new Error(
      `OPENRESPONSES_RESPONSES_URL '${url}' is not an http(s) URL (expected a base URL ending in /v1, e.g. http://127.0.0.1:8000/v1)`,
    );
  return new OpenResponsesProvider({
    baseUrl: url,
    apiKey: env.OPENRESPONSES_RESPONSES_API_KEY || undefined,
    name: 'open-responses',
    fetch,
    limits,
  });
}
