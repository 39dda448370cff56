// What the own tracer (./own-tracer.ts) checks of the attributes given to its spans: the SDK's rule for an
// attribute value, and a starting set's keys, kept for the last few frozen sets.
import type { Attributes, AttributeValue } from '@opentelemetry/api';

const isPrimitive = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
/** The SDK's rule: a primitive, or an array of one primitive type (nulls allowed). */
export function isAttributeValue(value: unknown): value is AttributeValue {
  if (!Array.isArray(value)) return isPrimitive(value);
  let type: string | undefined;
  // Indexed, not `for…of`: the array iterator's builtin was called per item (~170 instructions a traced turn's
  // finish reasons); a hole reads as undefined either way.
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (item == null) continue;
    if (type === undefined) {
      if (!isPrimitive(item)) return false;
      type = typeof item;
    } else if (typeof item !== type) return false;
  }
  return true;
}

// The keys of the last few frozen starting sets (the server starts its spans with a few): a span's added
// attributes are counted and checked against them without `Object.hasOwn`, ~18 calls of ~130 instructions a
// traced gateway turn (bench/README.md, issue 35's fifteenth session).
const RECENT_SETS = 8;
const recentSets: Array<Attributes | undefined> = new Array(RECENT_SETS).fill(undefined);
const recentKeys: string[][] = new Array(RECENT_SETS).fill([]);
let recentNext = 0;
/** The starting set's own enumerable keys (those the encoder writes). */
export function initialKeysOf(initial: Attributes): readonly string[] {
  for (let i = 0; i < RECENT_SETS; i++) if (recentSets[i] === initial) return recentKeys[i]!;
  const keys = Object.keys(initial);
  if (Object.isFrozen(initial)) {
    recentSets[recentNext] = initial;
    recentKeys[recentNext] = keys;
    recentNext = (recentNext + 1) % RECENT_SETS;
  }
  return keys;
}
