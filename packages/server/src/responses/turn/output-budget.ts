import type { LogProb } from '@openresponses/types';
import { utf8Length } from '../../limits.js';
import type { ModelPart } from '../../models/provider.js';

/** What an item or content part adds beyond its text (ids, type, status, empty arrays): counted so endless empty items end too. */
const ITEM_BYTES = 128;

/**
 * The bytes a part adds to the response (and to every event stream of it), for `maxOutputBytes`: text,
 * refusal, reasoning and argument deltas, the logprobs a delta carries, tool-call names and call ids,
 * annotations, whole items and vendor events. A provider cannot grow a response past the budget with
 * anything it sends.
 */
export function outputBytesOf(part: ModelPart): number {
  switch (part.type) {
    case 'text-delta':
      return utf8Length(part.delta) + (part.logprobs ? logprobBytes(part.logprobs) : 0);
    case 'refusal-delta':
    case 'reasoning-delta':
    case 'reasoning-summary-delta':
    case 'function-call-delta':
      return utf8Length(part.delta);
    case 'function-call-start':
      return ITEM_BYTES + utf8Length(part.name) + (part.callId === undefined ? 0 : utf8Length(part.callId));
    case 'text-start':
    case 'refusal-start':
    case 'reasoning-start':
    case 'reasoning-summary-start':
    case 'message-part-start':
      return ITEM_BYTES;
    case 'text-annotation':
      return utf8Length(JSON.stringify(part.annotation));
    case 'item':
      return utf8Length(JSON.stringify(part.item));
    case 'vendor-event':
      return utf8Length(JSON.stringify(part.event));
    default:
      return 0;
  }
}

/** Logprobs as the response carries them (JSON); the provider's objects are counted, whatever they hold. */
function logprobBytes(logprobs: readonly LogProb[]): number {
  return utf8Length(JSON.stringify(logprobs));
}
