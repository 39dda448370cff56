import * as z from 'zod/v4';
import { defineFamily, environmentUrl, routeProviderOptions } from '../family.js';
import type { UpstreamLimits } from '../../limits.js';
import type { UpstreamFetch } from '../upstream.js';
import { ANTHROPIC_URL, AnthropicMessagesProvider } from './provider.js';

/**
 * Anthropic Messages routes (`type: "anthropic-messages"`): besides the shared fields (`url` is the API
 * root, `https://api.anthropic.com`), `anthropicVersion` (the `anthropic-version` header), `auth`
 * (`x-api-key`, or `bearer` for OAuth tokens), `betas` (`anthropic-beta` features), `thinking` (how
 * `reasoning.effort` is sent when the model name does not say: `adaptive`, `budget`, `none`) and
 * `maxTokens` (`max_tokens` when a request sets no `max_output_tokens`).
 */
export const anthropicMessagesFamily = defineFamily({
  type: 'anthropic-messages',
  options: {
    /** The `anthropic-version` header sent upstream (a date, `YYYY-MM-DD`). */
    anthropicVersion: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
    /** How the key is sent: `x-api-key` (API keys, the default) or `bearer` (OAuth tokens). */
    auth: z.enum(['x-api-key', 'bearer']).optional(),
    /** Beta features asked for in the `anthropic-beta` header. */
    betas: z.array(z.string().min(1)).optional(),
    /** How `reasoning.effort` is sent when the model name does not say: `adaptive`, `budget` or `none`. */
    thinking: z.enum(['adaptive', 'budget', 'none']).optional(),
    /** The `max_tokens` sent when a request sets no `max_output_tokens` (default 8,192; Anthropic requires one). */
    maxTokens: z.number().int().positive().optional(),
  },
  create: (route, access) =>
    new AnthropicMessagesProvider({
      ...routeProviderOptions(route, access),
      anthropicVersion: route.anthropicVersion,
      auth: route.auth,
      betas: route.betas,
      thinking: route.thinking,
      defaultMaxTokens: route.maxTokens,
    }),
});

/**
 * `OPENRESPONSES_ANTHROPIC_API_KEY` (and `OPENRESPONSES_ANTHROPIC_URL`, default Anthropic's API) route every
 * model name starting with `claude-` to Anthropic, unchanged; undefined when no key is set. Throws when the
 * URL is not http(s).
 */
export function anthropicFromEnvironment(
  env: Record<string, string | undefined>,
  fetch: UpstreamFetch | undefined,
  limits?: Partial<UpstreamLimits>,
): AnthropicMessagesProvider | undefined {
  const apiKey = env.OPENRESPONSES_ANTHROPIC_API_KEY;
  if (!apiKey) return undefined;
  const url = environmentUrl(env, 'OPENRESPONSES_ANTHROPIC_URL', `e.g. ${ANTHROPIC_URL}`, ANTHROPIC_URL);
  try {
    return new AnthropicMessagesProvider({
      baseUrl: url,
      apiKey,
      route: { prefix: 'claude-', keepPrefix: true },
      name: 'anthropic',
      fetch,
      limits,
    });
  } catch (error) {
    throw new Error(`OPENRESPONSES_ANTHROPIC_API_KEY: ${(error as Error).message}`, { cause: error });
  }
}
