import { invalidRequest } from '../../errors.js';
import type { GeminiThinkingConfig } from './wire.js';

/**
 * How a Gemini model takes `reasoning`, read from its name (Gemini's thinking page):
 *
 * - `level`: Gemini 3 and later take `thinkingLevel` (Pro: `low`, `high`; Flash also `minimal`, `medium`).
 * - `budget`: Gemini 2.5 takes `thinkingBudget` in tokens (Pro cannot turn thinking off).
 * - `none`: Gemini 2.0 and 1.5 do not think; `reasoning.effort` is not sent to them.
 *
 * A name this table does not recognise (a route's own `upstreamModel`, a newer model) is taken as the newest
 * generation; a route can say otherwise with `thinking`.
 */
export type ThinkingStyle = 'level' | 'budget' | 'none';

export function thinkingStyleOf(model: string, style?: ThinkingStyle): ThinkingStyle {
  if (style) return style;
  const version = /^(?:models\/)?gemini-(\d+)(?:\.(\d+))?/.exec(model);
  if (!version) return 'level';
  const number = Number(version[1]) + Number(version[2] ?? 0) / 10;
  return number >= 3 ? 'level' : number >= 2.5 ? 'budget' : 'none';
}

/** `reasoning.effort` as a Gemini 2.5 `thinkingBudget` (Flash takes 0 to 24,576, Pro 128 to 32,768). */
const BUDGETS: Record<string, number> = { minimal: 512, low: 1024, medium: 8192, high: 24_576, xhigh: 24_576 };

/** `reasoning.effort` as a Gemini 3 `thinkingLevel`: Pro has two levels, Flash four. */
const LEVELS: Record<string, NonNullable<GeminiThinkingConfig['thinkingLevel']>> = {
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
};

/**
 * `reasoning` as `thinkingConfig`: thoughts are included (as summaries) whenever the request has `reasoning`,
 * and `effort` becomes the level or budget the model takes; `undefined` when the request has no `reasoning`
 * or the model does not think. `effort: "none"` turns thinking off where the model can (a 400 naming
 * `reasoning.effort` where it cannot).
 */
export function thinkingConfigOf(
  reasoning: { effort?: string | null; summary?: string | null } | null,
  model: string,
  style: ThinkingStyle,
): GeminiThinkingConfig | undefined {
  if (!reasoning || style === 'none') return undefined;
  const effort = reasoning.effort ?? undefined;
  const pro = /-pro\b/.test(model);
  if (effort === 'none') {
    if (style === 'budget' && !pro) return { thinkingBudget: 0 };
    if (style === 'level' && !pro) return { thinkingLevel: 'minimal' };
    throw invalidRequest(
      'unsupported_parameter',
      `${model} cannot turn thinking off; leave reasoning.effort unset or choose a level.`,
      'reasoning.effort',
    );
  }
  const config: GeminiThinkingConfig = { includeThoughts: true };
  if (effort === undefined) return config;
  if (style === 'budget') {
    const budget = BUDGETS[effort];
    if (budget === undefined) throw unknownEffort(effort);
    // Pro thinks up to 32,768 tokens.
    config.thinkingBudget = pro && effort === 'xhigh' ? 32_768 : budget;
  } else {
    let level = LEVELS[effort];
    if (level === undefined) throw unknownEffort(effort);
    // Pro models take low and high only.
    if (pro) level = level === 'minimal' || level === 'low' ? 'low' : 'high';
    config.thinkingLevel = level;
  }
  return config;
}

const unknownEffort = (effort: string) =>
  invalidRequest(
    'unsupported_parameter',
    `reasoning.effort '${effort}' has no Gemini equivalent (minimal, low, medium, high, xhigh, none).`,
    'reasoning.effort',
  );
