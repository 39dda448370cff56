import { countTokens } from '../../models/item-text.js';
import type { ModelPart } from '../../models/provider.js';
import { type PartReader, READ_PARTS } from '../../models/upstream-provider.js';

/**
 * How a turn reads a provider's parts: an async iterator, or a synchronous one when the provider's
 * iterable is also synchronous (the embedded model: nothing waits between its parts), so that a part
 * that is ready costs no promise and no microtask.
 */
export interface PartIterator {
  next(): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>>;
  return?(): unknown;
}

/**
 * The parts of `source`: read synchronously when it is also a synchronous iterable, a batch at a time from an
 * upstream exchange (`READ_PARTS`: a promise only when it waits for the upstream).
 */
export function readParts(source: AsyncIterable<ModelPart>): PartIterator {
  const sync = (source as Partial<Iterable<ModelPart>>)[Symbol.iterator];
  if (sync) return sync.call(source);
  const batched = (source as { [READ_PARTS]?: () => PartReader })[READ_PARTS];
  return batched ? batched.call(source) : source[Symbol.asyncIterator]();
}

/** Ends the provider's stream early (the turn ended first); its own failure to end is of no interest. */
export function stopParts(iterator: PartIterator): void {
  try {
    const ended = iterator.return?.();
    if (ended instanceof Promise) ended.catch(() => {});
  } catch {}
}

/** Work done at once (the value) or later (a promise of it): what is ready costs no promise. */
export type Pending<T = undefined> = T | Promise<T>;

/** A step's pending work, answering no turn result. */
export const noResult = (pending: Pending): Pending => pending?.then(() => undefined);

/** A lane per started item (`text-delta` -> `text:<id>`); the text and refusal parts of one message share its lane. */
export const laneKey = (part: { type: string; id: string }) => {
  // A stream's deltas ask for the same key in a row: the last one is kept (built and hashed once).
  if (part.type === keyed.type && part.id === keyed.id) return keyed.key;
  const kind = part.type.slice(0, part.type.indexOf('-'));
  keyed = {
    type: part.type,
    id: part.id,
    key: `${kind === 'refusal' || kind === 'message' ? 'text' : kind}:${part.id}`,
  };
  return keyed.key;
};
let keyed = { type: '', id: '', key: '' };
export const isItemEnd = (type: string) => type.endsWith('-end') && type !== 'reasoning-summary-end';

/** The output tokens of a turn's `deltas`, each counted on its own, as they came. */
export function tokensOf(deltas: readonly string[]): number {
  let tokens = 0;
  for (const delta of deltas) tokens += countTokens(delta);
  return tokens;
}
