// The monotonic clock the server's durations read (a turn's start, its metrics, an answer's duration).

/**
 * `performance`, read from the global once: on Node the global is a lazy getter that runs on every read (~250
 * instructions more per `performance.now()`, callgrind). The same object, so a spy on `performance.now` (the
 * metrics clock tests) still sees every read.
 */
export const clock: Pick<Performance, 'now'> = globalThis.performance;
