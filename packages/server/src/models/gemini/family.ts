import * as z from 'zod/v4';
import { defineFamily, environmentUrl, routeProviderOptions } from '../family.js';
import type { UpstreamLimits } from '../../limits.js';
import type { UpstreamFetch } from '../upstream.js';
import { GEMINI_URL, GeminiProvider } from './provider.js';

/**
 * Gemini routes (`type: "gemini"`): besides the shared fields (`url` is the API root,
 * `https://generativelanguage.googleapis.com`; `defaults` may hold `generationConfig`, `safetySettings`, …),
 * `thinking` says how `reasoning.effort` is sent when the model name does not say (`level`: Gemini 3's
 * `thinkingLevel`; `budget`: Gemini 2.5's `thinkingBudget`; `none`).
 */
export const geminiFamily = defineFamily({
  type: 'gemini',
  options: {
    /**
     * How `reasoning.effort` is sent when the model name does not say: `level` (Gemini 3's `thinkingLevel`),
     * `budget` (Gemini 2.5's `thinkingBudget`) or `none`.
     */
    thinking: z.enum(['level', 'budget', 'none']).optional(),
  },
  create: (route, access) =>
    new GeminiProvider({
      ...routeProviderOptions(route, access),
      thinking: route.thinking,
    }),
});

/**
 * `OPENRESPONSES_GEMINI_API_KEY` (and `OPENRESPONSES_GEMINI_URL`, the API root, default Google's) route every
 * model name starting with `gemini-` to the Gemini API, unchanged; undefined when no key is set. Throws when
 * the URL is not http(s).
 */
export function geminiFromEnvironment(
  env: Record<string, string | undefined>,
  fetch: UpstreamFetch | undefined,
  limits?: Partial<UpstreamLimits>,
): GeminiProvider | undefined {
  const apiKey = env.OPENRESPONSES_GEMINI_API_KEY;
  if (!apiKey) return undefined;
  return new GeminiProvider({
    baseUrl: environmentUrl(env, 'OPENRESPONSES_GEMINI_URL', `e.g. ${GEMINI_URL}`, GEMINI_URL),
    apiKey,
    route: { prefix: 'gemini-', keepPrefix: true },
    name: 'gemini',
    fetch,
    limits,
  });
}
