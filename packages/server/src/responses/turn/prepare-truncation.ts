import type { ItemField } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';
import { countTokens, itemTokens, itemTokensAtMost, tokensAtMost } from '../../models/item-text.js';

/**
 * The context fitted to the model's window in `countTokens` tokens: as it is when it fits; with
 * `truncation: 'auto'`, without its oldest items (`truncateOldest`); otherwise a 400
 * `context_length_exceeded`. Counting every word costs more than parsing the body did, so a context
 * whose upper bound (`itemTokensAtMost`) fits is not counted: `inputTokens` is then undefined and a
 * provider that reports usage from it counts it (`contextTokens`). Either way the decision is the exact count's.
 */
export function fitToWindow(
  items: ItemField[],
  instructions: string | null | undefined,
  window: number,
  truncation: 'auto' | 'disabled',
): { items: ItemField[]; inputTokens: number | undefined } {
  let bound = tokensAtMost(instructions ?? '');
  for (let i = 0; i < items.length && bound <= window; i++) bound += itemTokensAtMost(items[i]!);
  if (bound <= window) return { items, inputTokens: undefined };
  // Each item is counted once; truncation subtracts what it drops (re-counting after each drop was quadratic).
  const tokensPerItem = items.map(itemTokens);
  const inputTokens = tokensPerItem.reduce((n, count) => n + count, countTokens(instructions ?? ''));
  if (inputTokens <= window) return { items, inputTokens };
  if (truncation === 'disabled')
    throw invalidRequest(
      'context_length_exceeded',
      `The input is ${inputTokens} tokens, over the model's context window of ${window}; truncation is disabled.`,
      'input',
    );
  const truncated = truncateOldest(items, tokensPerItem, inputTokens, window);
  return { items: truncated.items, inputTokens: truncated.tokens };
}

const isInstruction = (item: ItemField) =>
  item.type === 'message' && ['system', 'developer'].includes((item as { role: string }).role);

/**
 * truncation: auto. Drops the oldest items first, keeping system and developer messages (and, when only
 * those are left, the oldest of them), until the context fits or one item is left. Linear: two cursors
 * over the items, each moving forward only.
 */
export function truncateOldest(
  items: ItemField[],
  itemTokens: number[],
  tokens: number,
  window: number,
): { items: ItemField[]; tokens: number } {
  const dropped = new Uint8Array(items.length);
  let left = items.length;
  let nextOrdinary = 0;
  let nextAny = 0;
  while (tokens > window && left > 1) {
    while (nextOrdinary < items.length && (dropped[nextOrdinary] || isInstruction(items[nextOrdinary]!)))
      nextOrdinary++;
    while (dropped[nextAny]) nextAny++;
    const drop = nextOrdinary < items.length ? nextOrdinary : nextAny;
    dropped[drop] = 1;
    left--;
    tokens -= itemTokens[drop]!;
  }
  return { items: items.filter((_, index) => !dropped[index]), tokens };
}
