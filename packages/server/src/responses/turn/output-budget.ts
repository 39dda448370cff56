import { utf8Length } from '../../limits.js';
import type { ModelPart } from '../../models/provider.js';

/** What an item or content part adds beyond what it carries (ids, type, status, empty arrays): counted so endless empty items end too. */
const ITEM_BYTES = 128;

/**
 * The least any part costs, whatever it carries (an empty delta too): each part becomes at least one event
 * whose envelope is 100 to 200 bytes, so bounding the bytes bounds the events. Far below a real token's cost
 * in events: a 4 MiB budget still allows 262,144 deltas.
 */
export const MIN_PART_BYTES = 16;

/**
 * The bytes a part adds to the response (and to every event stream of it), for `maxOutputBytes`: the one
 * meter of the turn, the same for every provider family. The deltas, whose shape is fixed, are counted by
 * their text and logprobs; every other part is counted whole, whatever it carries (names, call ids,
 * annotations, whole items, vendor events, a reasoning item's opaque `state` such as a thinking signature or
 * redacted data), so no field a family fills can escape the budget. The sealed copy of a reasoning item
 * (`encrypted_content`) is charged by the turn where it is made.
 */
export function outputBytesOf(part: ModelPart): number {
  switch (part.type) {
    case 'text-delta':
      return Math.max(
        MIN_PART_BYTES,
        utf8Length(part.delta) + (part.logprobs ? utf8Length(JSON.stringify(part.logprobs)) : 0),
      );
    case 'refusal-delta':
    case 'reasoning-delta':
    case 'reasoning-summary-delta':
    case 'function-call-delta':
      return Math.max(MIN_PART_BYTES, utf8Length(part.delta));
    default:
      return utf8Length(JSON.stringify(part)) + (part.type.endsWith('-start') || part.type === 'item' ? ITEM_BYTES : 0);
  }
}
