// The exposition GET /metrics serves (node/prometheus-text.ts) against @opentelemetry/exporter-prometheus's
// serializer, which it replaces: the same text byte for byte, over the SDK's instruments and over made-up
// collections with every kind of metric, label values to escape, names to sanitise and odd histograms.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { ValueType } from '@opentelemetry/api';
import type { DataPoint, Histogram, MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { describe, expect, test } from 'vitest';
import { boundedExposition } from '../src/node/prometheus.js';
import { prometheusText } from '../src/node/prometheus-text.js';

/** `DataPointType` and `AggregationTemporality` of @opentelemetry/sdk-metrics (loaded only in the library's process). */
const HISTOGRAM = 0;
const GAUGE = 2;
const SUM = 3;
const CUMULATIVE = 1;

const LABEL_VALUES = [
  '',
  'gpt-4o',
  'a\\b',
  'say "hi"',
  'two\nlines',
  '\\"\n\\n',
  'héllo wörld ✓',
  '日本語 🚀',
  'tab\there',
  'trailing space ',
  '_OTHER',
];

/** A generator of numbers in [0, 1) from a seed, so a failing case can be replayed. */
function random(seed: number): () => number {
  // Spread over the 32 bits (small seeds would start with small numbers).
  let state = Math.imul(seed, 0x9e3779b1) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

const time: [number, number] = [1_700_000_000, 123_000_000];
const point = <T>(attributes: DataPoint<T>['attributes'], value: T): DataPoint<T> => ({
  attributes,
  startTime: time,
  endTime: time,
  value,
});

function collection(seed: number): ResourceMetrics {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const number = () => pick([0, 1, 7, 42, 0.5, 1.25, 1e-7, 123456789012, 2 ** 53, -3, 1e21, Number.NaN]);
  const attributes = () => {
    const set: Record<string, unknown> = {};
    const size = Math.floor(next() * 4);
    for (let i = 0; i < size; i++)
      set[pick(['gen_ai.request.model', 'http.route', 'error.type', 'a-b', 'x__y', '0lead', 'le'])] = pick([
        ...LABEL_VALUES,
        ...LABEL_VALUES,
        200,
        1.5,
        true,
        ['a', 'b"'],
        null,
        undefined,
      ]);
    return set as DataPoint<number>['attributes'];
  };
  const histogram = (): Histogram => {
    const boundaries = pick([[], [0.01, 0.1, 1, 10], [1, 2, Infinity], [0.005, 0.5, 5, 50, 500, 5000]]);
    const length = boundaries.length + pick([0, 1, 1]);
    const counts = Array.from({ length }, () => Math.floor(next() * 5));
    return {
      buckets: { boundaries, counts },
      sum: next() < 0.9 ? number() : undefined,
      count: counts.reduce((a, b) => a + b, 0),
      min: 0,
      max: 1,
    };
  };
  const names = [
    'gen_ai.client.operation.duration_seconds',
    'requests',
    'requests_total',
    'a-b.c',
    '9lives',
    '0ms',
    'x\\y',
    'ünï',
  ];
  const metrics: MetricData[] = [];
  for (let m = Math.floor(next() * 6); m > 0; m--) {
    const descriptor = {
      name: pick(names),
      description: pick(['', 'Time to the first token.', 'back\\slash\nnewline "quoted"']),
      unit: pick(['', 's', '{token}', 'By']),
      valueType: ValueType.DOUBLE,
    };
    const points = Math.floor(next() * 5);
    const kind = pick(['counter', 'up-down', 'gauge', 'histogram'] as const);
    if (kind === 'histogram')
      metrics.push({
        descriptor,
        aggregationTemporality: CUMULATIVE,
        dataPointType: HISTOGRAM,
        dataPoints: Array.from({ length: points }, () => point(attributes(), histogram())),
      });
    else if (kind === 'gauge')
      metrics.push({
        descriptor,
        aggregationTemporality: CUMULATIVE,
        dataPointType: GAUGE,
        dataPoints: Array.from({ length: points }, () => point(attributes(), number())),
      });
    else
      metrics.push({
        descriptor,
        aggregationTemporality: CUMULATIVE,
        dataPointType: SUM,
        isMonotonic: kind === 'counter',
        dataPoints: Array.from({ length: points }, () => point(attributes(), number())),
      });
  }
  const scope = pick([
    { name: 'openresponses-server' },
    { name: 'scope "q"\\', version: '1.2.3', schemaUrl: 'https://opentelemetry.io/schemas/1.30.0' },
  ]);
  return {
    resource: { attributes: {} } as ResourceMetrics['resource'],
    scopeMetrics:
      next() < 0.1 ? [] : [{ scope, metrics }, ...(next() < 0.3 ? [{ scope: { name: 'other' }, metrics }] : [])],
  };
}

/** The library's texts of `collections`, and of a collection of the SDK's instruments it makes (library-exposition.cjs). */
function libraryExpositions(collections: ResourceMetrics[]): { sdk: ResourceMetrics; texts: string[] } {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawnSync(process.execPath, [fileURLToPath(new URL('library-exposition.cjs', import.meta.url))], {
    input: serialize({ collections, labelValues: LABEL_VALUES }),
    env,
    maxBuffer: 256 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`library-exposition.cjs: ${child.stderr}`);
  return deserialize(child.stdout);
}

describe('the Prometheus exposition (node/prometheus-text.ts)', () => {
  const collections = Array.from({ length: 2000 }, (_, index) => collection(index + 1));
  const { sdk, texts } = libraryExpositions(collections);

  test('writes what the library writes over 2,000 made-up collections', () => {
    for (const [index, metrics] of collections.entries())
      expect(prometheusText(metrics), `seed ${index + 1}`).toBe(texts[index]);
  });

  test('written only up to a bound, cut by boundedExposition as the whole text is, at every line end', () => {
    let cuts = 0;
    for (const [index, metrics] of collections.slice(0, 1000).entries()) {
      const whole = texts[index];
      const lineEnds = [...whole.matchAll(/\n/g)].map((match) => match.index);
      for (const end of [0, ...lineEnds, whole.length])
        for (const max of [end - 1, end, end + 1, end + 2]) {
          if (max < 0) continue;
          const written = prometheusText(metrics, max);
          // The whole text's beginning, ended only once past max + 1.
          expect(whole.startsWith(written) && (written === whole || written.length > max + 1)).toBe(true);
          if (written.length < whole.length) cuts++;
          expect(boundedExposition(written, max), `seed ${index + 1}, max ${max}`).toBe(boundedExposition(whole, max));
        }
    }
    // Most bounds stop the writing early.
    expect(cuts).toBeGreaterThan(30_000);
  });

  test('writes what the library writes over the SDK instruments of every kind, 500 series each', () => {
    const text = prometheusText(sdk);
    expect(text.split('\n').length).toBeGreaterThan(8000);
    expect(text).toBe(texts.at(-1));
  });
});
