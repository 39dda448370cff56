// The server's own aggregation (telemetry/aggregation.ts; the SDK's readers read it through
// node/own-metrics.ts): buckets with inclusive upper bounds, count, sum, min and max as OpenTelemetry defines
// them, series by attribute set whatever its key order, negative values dropped, and one overflow series past
// MAX_SERIES (the SDK's cardinality rule). What `GET /metrics` serves from it: test/metrics.test.ts on the CLI.
import { expect, test } from 'vitest';
import { Aggregation, MAX_SERIES } from '../src/telemetry/aggregation.js';
import { BUCKETS } from '../src/telemetry/metrics.js';

test('a histogram and a counter: the figures of the values recorded, one series per attribute set', () => {
  const own = new Aggregation();
  const histogram = own.histogram('h', 's', 'd', BUCKETS.overhead);
  const counter = own.counter('c', '{x}', 'd');
  const sets = [{ a: 'x', b: 1 }, { b: 1, a: 'x' }, { a: 'y' }];
  // On each bound (inclusive), between bounds, past the last, zero, and a negative value (dropped).
  const values = [...BUCKETS.overhead, 0, 0.00005, 0.0003, 0.7, 2, 1e6, -1];
  const expected = new Map<string, number[]>();
  for (const [i, value] of values.entries()) {
    const attributes = sets[i % 3]!;
    histogram.record(value, attributes);
    counter.add(i, attributes);
    if (value < 0) continue;
    const key = i % 3 === 2 ? 'y' : 'x';
    expected.set(key, [...(expected.get(key) ?? []), value]);
  }
  const [h, c] = own.collect();
  expect(h!.series).toHaveLength(2);
  for (const series of h!.series) {
    const recorded = expected.get(series.attributes.a as string)!;
    const counts = new Array(BUCKETS.overhead.length + 1).fill(0);
    for (const value of recorded) {
      const bound = BUCKETS.overhead.findIndex((b) => value <= b);
      counts[bound < 0 ? BUCKETS.overhead.length : bound]++;
    }
    expect(series.counts).toEqual(counts);
    expect(series.count).toBe(recorded.length);
    expect(series.sum).toBeCloseTo(
      recorded.reduce((a, b) => a + b, 0),
      9,
    );
    expect([series.min, series.max]).toEqual([Math.min(...recorded), Math.max(...recorded)]);
  }
  const sums = Object.fromEntries(c!.series.map((s) => [s.attributes.a, s.sum]));
  const indexes = values.map((_, i) => i);
  expect(sums).toEqual({
    x: indexes.filter((i) => i % 3 !== 2).reduce((a, b) => a + b, 0),
    y: indexes.filter((i) => i % 3 === 2).reduce((a, b) => a + b, 0),
  });
});

test('past MAX_SERIES attribute sets, values go to one overflow series, as the SDK does', () => {
  const own = new Aggregation();
  const histogram = own.histogram('h', 's', 'd', [1]);
  for (let i = 0; i < MAX_SERIES + 50; i++) histogram.record(0.5, { model: `m${i}` });
  histogram.record(0.5, { model: 'm0' });
  const [snapshot] = own.collect();
  expect(snapshot!.series).toHaveLength(MAX_SERIES + 1);
  const overflow = snapshot!.series.find((s) => s.attributes['otel.metric.overflow'] === true);
  expect(overflow?.count).toBe(50);
  expect(snapshot!.series.find((s) => s.attributes.model === 'm0')?.count).toBe(2);
});
