import type { TurnMeter } from '../src/telemetry/metrics.js';

/** A turn meter that notes what it is told, in order (`ended` is not noted). */
export function recordingMeter(): { calls: unknown[][]; meter: TurnMeter } {
  const calls: unknown[][] = [];
  const meter: TurnMeter = {
    firstOutput: () => calls.push(['firstOutput']),
    finished: (...args) => calls.push(['finished', ...args]),
    ended: () => {},
  };
  return { calls, meter };
}
