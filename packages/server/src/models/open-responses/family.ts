import * as z from 'zod/v4';
import type { UpstreamLimits } from '../../limits.js';
import { defineFamily, environmentUrl, routeProviderOptions } from '../family.js';
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
    /**
     * Ask for `reasoning.encrypted_content` so reasoning goes back on the next turn (default true); false for a
     * server that refuses that `include` value.
     */
    encryptedReasoning: z.boolean().optional(),
  },
  create: (route, access) =>
    new OpenResponsesProvider({
      ...routeProviderOptions(route, access),
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
  const url = environmentUrl(
    env,
    'OPENRESPONSES_RESPONSES_URL',
    'a base URL ending in /v1, e.g. http://127.0.0.1:8000/v1',
  );
  if (!url) return undefined;
  return new OpenResponsesProvider({
    baseUrl: url,
    apiKey: env.OPENRESPONSES_RESPONSES_API_KEY || undefined,
    name: 'open-responses',
    fetch,
    limits,
  });
}
