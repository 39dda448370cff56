import type { ItemField } from '@openresponses/types';

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
