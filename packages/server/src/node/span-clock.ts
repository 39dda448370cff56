// The own tracer's clock (./own-tracer.ts): a span's start and end are `performance.now()` readings kept as
// wall-clock ms; a time a caller gives is read as the SDK reads it.
import type { HrTime, TimeInput } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';

// `performance` imported, not the global: the global is a lazy getter that Node runs on every read, and the
// time origin is read once (a getter too, and fixed for the process).
const timeOrigin = performance.timeOrigin;
let clockOffset = 0;
let clockTimer: ReturnType<typeof setInterval> | undefined;
/** How far `Date.now()` has moved from the time origin (the monotonic clock drifts over a long uptime). */
function measureOffset(): void {
  clockOffset = Date.now() - (timeOrigin + performance.now());
}
/** The offset measured now and every 10 s after, by an unref'd timer. */
function startClock(): void {
  measureOffset();
  clockTimer = setInterval(measureOffset, 10_000);
  clockTimer.unref();
}
/**
 * Wall-clock ms of a `performance.now()` reading: the time origin corrected by the offset measured every 10 s off
 * the spans' path. Measured in line, the check's first run after the tracer's code was optimised (10 s in) met a
 * `Date.now` with no type feedback (the first call runs before V8 keeps any) and deoptimised `startFixed` and `end`.
 */
export function wallClockMs(now: number): number {
  if (clockTimer === undefined) startClock();
  return timeOrigin + now + clockOffset;
}
/** `[s, ns]` of wall-clock ms. */
export const hrTimeOf = (ms: number): HrTime => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
};
/** A `TimeInput` (epoch ms, a `performance.now()` reading, a Date, or `[s, ns]`) as `[s, ns]`. */
export function timeOf(input: TimeInput): HrTime {
  if (Array.isArray(input)) return input as HrTime;
  if (input instanceof Date) return hrTimeOf(input.getTime());
  const ms = input as number;
  return hrTimeOf(ms <= performance.now() ? wallClockMs(ms) : ms);
}
