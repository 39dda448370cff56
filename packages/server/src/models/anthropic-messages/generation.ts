/**
 * What a Claude model generation accepts, read from its name (Anthropic's models overview, the adaptive
 * thinking and extended thinking pages, and the SDK's model list):
 *
 * - `adaptive`: Opus 4.6, Sonnet 4.6 and later take `thinking: { type: "adaptive" }` with
 *   `output_config.effort`; Opus 4.7, Opus 5, Sonnet 5 and the Mythos and Fable models take nothing else
 *   (`adaptiveOnly`: manual budgets and `disabled` are 400s there).
 * - `budget`: Claude 3.7 Sonnet up to the 4.5 generation take `thinking: { type: "enabled", budget_tokens }`.
 * - `none`: older models (Claude 3, 3.5) cannot think; reasoning settings are not sent to them.
 * - `exclusiveSampling`: from Opus 4.1 on, `temperature` and `top_p` cannot both be set.
 *
 * A name this table does not recognise (a route's own `upstreamModel`, a model newer than this table) is
 * taken as the newest generation; a route can say otherwise with `thinking`.
 */
export interface ModelGeneration {
  thinking: 'adaptive' | 'budget' | 'none';
  adaptiveOnly: boolean;
  exclusiveSampling: boolean;
}

const NEWEST: ModelGeneration = { thinking: 'adaptive', adaptiveOnly: true, exclusiveSampling: true };

export function generationOf(model: string, thinking?: 'adaptive' | 'budget' | 'none'): ModelGeneration {
  const found = fromName(model);
  return thinking ? { ...found, thinking, adaptiveOnly: found.adaptiveOnly && thinking === 'adaptive' } : found;
}

function fromName(model: string): ModelGeneration {
  // Older names put the version first: claude-3-7-sonnet-20250219, claude-3-5-haiku-latest, claude-3-opus-….
  const legacy = /^claude-3(?:-(\d))?-(?:opus|sonnet|haiku)/.exec(model);
  if (legacy) {
    const minor = Number(legacy[1] ?? 0);
    return { thinking: minor >= 7 ? 'budget' : 'none', adaptiveOnly: false, exclusiveSampling: false };
  }
  // Newer names put the family first: claude-opus-4-6, claude-sonnet-4-5-20250929, claude-haiku-4-5, claude-opus-5.
  const named = /^claude-([a-z]+)-(\d+)(?:-(\d))?(?:-|$)/.exec(model);
  if (!named) return NEWEST;
  const family = named[1]!;
  const version = Number(named[2]) + Number(named[3] ?? 0) / 10;
  if (family === 'mythos' || family === 'fable' || version >= 5) return NEWEST;
  const exclusiveSampling = version >= 4.1;
  if (version >= 4.6)
    return { thinking: 'adaptive', adaptiveOnly: family === 'opus' && version >= 4.7, exclusiveSampling };
  return { thinking: 'budget', adaptiveOnly: false, exclusiveSampling };
}

/** `reasoning.effort` as `output_config.effort` (Anthropic's levels: low, medium, high, xhigh, max). */
export const ADAPTIVE_EFFORT: Record<string, string> = {
  minimal: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
};

/** `reasoning.effort` as a thinking budget in tokens (1,024 is the smallest Anthropic takes). */
export const BUDGET_TOKENS: Record<string, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 32_000,
};

/** The smallest `budget_tokens` Anthropic takes. */
export const MIN_BUDGET_TOKENS = 1024;
