// The embedded model's output within a turn's `max_output_tokens`: its texts as deltas (word by word when a
// client watches, whole otherwise), the tokens they cost, and the usage it reports.
import type { LogProb } from '@openresponses/types';
import { contextTokens, countTokens } from './item-text.js';
import type { ModelPart, ModelRequest, ModelUsage } from './provider.js';

/**
 * A turn's output tokens within `max_output_tokens` (one object a turn, its methods on the prototype: the
 * closures it replaces were made anew each turn).
 */
export class TokenBudget {
  private readonly budget: number;
  private readonly inputTokens: number;
  private outputTokens = 0;
  private reasoningTokens = 0;

  constructor(private readonly request: ModelRequest) {
    this.budget = request.maxOutputTokens ?? Infinity;
    this.inputTokens = contextTokens(request);
  }

  usage(): ModelUsage {
    return { inputTokens: this.inputTokens, outputTokens: this.outputTokens, reasoningTokens: this.reasoningTokens };
  }

  outOfTokens(): ModelPart {
    return { type: 'finish', reason: 'length', usage: this.usage() };
  }

  /** Spends `count` tokens if they fit. */
  spend(count: number, reasoning: boolean): boolean {
    if (this.outputTokens + count > this.budget) return false;
    this.outputTokens += count;
    if (reasoning) this.reasoningTokens += count;
    return true;
  }

  /** The deltas of a text (its words, counted only when the text goes whole) within the budget; `fits` is false when it ran out. */
  deltasOf(text: string, reasoning: boolean): { deltas: string[]; fits: boolean } {
    if (!this.request.stream) {
      const count = countTokens(text);
      if (this.spend(count, reasoning)) return { deltas: count > 0 ? [text.trimEnd()] : [], fits: true };
    }
    return this.deltasWithin(words(text), reasoning);
  }

  deltasWithin(pieces: string[], reasoning: boolean): { deltas: string[]; fits: boolean } {
    let fits = 0;
    while (fits < pieces.length && this.spend(1, reasoning)) fits++;
    const deltas = pieces.slice(0, fits);
    return {
      deltas: fits === 0 ? deltas : this.request.stream ? groupDeltas(deltas) : [deltas.join('')],
      fits: fits === pieces.length,
    };
  }
}

/** The delta's tokens (words), each the only candidate: logprob 0. */
export function certain(delta: string, request: ModelRequest): LogProb[] {
  return words(delta).map((token) => {
    const bytes = [...encoder.encode(token)];
    const top = (request.topLogprobs ?? 0) > 0 ? [{ token, logprob: 0, bytes }] : [];
    return { token, logprob: 0, bytes, top_logprobs: top };
  });
}

/** Most deltas one text or call streams: a delta event costs ~150 bytes besides its text, so one per word would multiply a long input many times over. */
const MAX_DELTAS_PER_PART = 1024;

/** The pieces as at most MAX_DELTAS_PER_PART deltas (several pieces per delta for long texts). */
function groupDeltas(pieces: string[]): string[] {
  if (pieces.length <= MAX_DELTAS_PER_PART) return pieces;
  const perDelta = Math.ceil(pieces.length / MAX_DELTAS_PER_PART);
  const grouped: string[] = [];
  for (let i = 0; i < pieces.length; i += perDelta) grouped.push(pieces.slice(i, i + perDelta).join(''));
  return grouped;
}

const encoder = new TextEncoder();

/**
 * Text as streamed word by word, spaces kept with the following word. Sticky (`y`): matching stops at the
 * first place no word follows, where a plain global search would rescan trailing spaces from each of their
 * positions (quadratic: 1 MiB of `instructions` ending in spaces stalled the event loop).
 */
function words(text: string): string[] {
  return text.match(/\s*\S+/gy) ?? [];
}
