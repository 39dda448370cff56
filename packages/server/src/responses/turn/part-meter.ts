import type { ModelPart } from '../../models/provider.js';
import type { TurnMeter } from '../../telemetry/metrics.js';

/**
 * Tells `meter` of the model's first output and of the usage at `finish`, as each part arrives: `startTurn` shows
 * it the first part, the turn's stream (turn/stream.ts) every later one. An observer, not a wrapping iterator: the
 * turn reads its provider's iterator itself whatever the settings, and a part that waited costs no promise more (a
 * wrapper chained one to each). Whether the parts waited since the first output is noted, so that a finish that came
 * with it (an upstream's JSON answer is one batch of parts) shares its clock read.
 */
export class PartMeter {
  private first = true;
  private waited = false;

  constructor(private readonly meter: TurnMeter) {}

  /** A part that was waited for, observed. */
  observedAfterWait(result: IteratorResult<ModelPart>): IteratorResult<ModelPart> {
    this.waited = true;
    return this.observed(result);
  }

  /** A part that was there at once, observed. */
  observed(result: IteratorResult<ModelPart>): IteratorResult<ModelPart> {
    if (result.done) return result;
    const part = result.value;
    if (part.type === 'finish')
      this.meter.finished(part.usage.inputTokens, part.usage.outputTokens, !this.first && !this.waited);
    else if (this.first && isOutput(part.type)) {
      this.first = false;
      this.waited = false;
      this.meter.firstOutput();
    }
    return result;
  }
}

/**
 * Whether a part is output (a delta or a whole item): its type compared with each part type, interned strings
 * compared by reference, where a suffix test was a builtin call of ~190 instructions a turn (callgrind). Every
 * part type is named.
 */
function isOutput(type: ModelPart['type']): boolean {
  switch (type) {
    case 'text-delta':
    case 'item':
    case 'function-call-delta':
    case 'reasoning-delta':
    case 'reasoning-summary-delta':
    case 'refusal-delta':
      return true;
    case 'text-start':
    case 'text-end':
    case 'refusal-start':
    case 'refusal-end':
    case 'message-part-start':
    case 'text-annotation':
    case 'reasoning-start':
    case 'reasoning-summary-start':
    case 'reasoning-summary-end':
    case 'reasoning-end':
    case 'function-call-start':
    case 'function-call-end':
    case 'vendor-event':
    case 'finish':
    case 'error':
      return false;
    default:
      // A part type added to `ModelPart` fails to compile here until it is sorted.
      void (type satisfies never);
      return false;
  }
}
