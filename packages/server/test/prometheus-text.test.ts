// The exposition GET /metrics serves (node/prometheus-text.ts) against @opentelemetry/exporter-prometheus's
// serializer, which it replaces: the same text byte for byte, over the SDK's instruments and over made-up
// collections with every kind of metric, label values to escape, names to sanitise and odd histograms.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { ValueType } from '@opentelemetry/api';
import type { DataPoint, Histogram, MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, test } from 'vitest';
import { MAX_EXPOSITION_CHARS } from '../src/node/prometheus.js';
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

  test('bounded: the families that fit served whole, each family left out named, at every line end', () => {
    let leftOut = 0;
    for (const [index, metrics] of collections.slice(0, 1000).entries()) {
      const whole = texts[index];
      const lineEnds = [...whole.matchAll(/\n/g)].map((match) => match.index);
      for (const end of [0, ...lineEnds, whole.length])
        for (const max of [end - 1, end, end + 1, end + 2]) {
          if (max < 0) continue;
          const written = prometheusText(metrics, max);
          expect(written, `seed ${index + 1}, max ${max}`).toBe(expectedCut(whole, max));
          if (whole !== '# no registered metrics') expect(written.length).toBeLessThanOrEqual(max);
          leftOut += written.split(LEFT_OUT).length - 1;
        }
    }
    // Most bounds leave families out.
    expect(leftOut).toBeGreaterThan(30_000);
  });

  test('a histogram whose bucket lines are as short as they can be is served at a bound of its length', () => {
    // No count or sum line: the lines the writer skips a histogram by, without writing it, are all of it.
    const value = { buckets: { boundaries: [1, 2], counts: [0, 0] }, count: undefined, sum: undefined };
    const metrics: ResourceMetrics = {
      resource: { attributes: {} } as ResourceMetrics['resource'],
      scopeMetrics: [
        {
          scope: { name: 's' },
          metrics: [
            {
              descriptor: { name: 'h', description: '', unit: '', valueType: ValueType.DOUBLE },
              aggregationTemporality: CUMULATIVE,
              dataPointType: HISTOGRAM,
              dataPoints: [
                point({ a: 'x', b: '' }, value as unknown as Histogram),
                point({}, value as unknown as Histogram),
              ],
            },
          ],
        },
      ],
    };
    const whole = prometheusText(metrics);
    expect(whole.split('\n').filter((line) => line.startsWith('h_bucket'))).toHaveLength(4);
    expect(prometheusText(metrics, whole.length)).toBe(whole);
    expect(prometheusText(metrics, whole.length - 1)).toMatch(/^# openresponses: metric family h left out/);
  });

  test('with the default bound, a histogram at the series cap is left out and the gauges and counters served', () => {
    const metrics = atTheCaps();
    const whole = prometheusText(metrics);
    const histogram = families(whole)[1];
    expect(histogram.length).toBeGreaterThan(MAX_EXPOSITION_CHARS);
    const written = prometheusText(metrics, MAX_EXPOSITION_CHARS);
    expect(written.length).toBeLessThanOrEqual(MAX_EXPOSITION_CHARS);
    expect(written).toBe(expectedCut(whole, MAX_EXPOSITION_CHARS));
    const [gauge, , counter] = families(whole);
    expect(written).toBe(
      `${gauge}# openresponses: metric family gen_ai_server_request_duration_seconds left out: the exposition would pass ${MAX_EXPOSITION_CHARS} characters\n${counter}`,
    );
    // Still the text format: the comment is only a comment.
    expect(parsePrometheusTextFormat(written).map((family) => family.name)).toEqual([
      'openresponses_server_active_requests',
      'openresponses_server_rejections_total',
    ]);
    const small = gauge.length + counter.length + 200;
    expect(prometheusText(metrics, small)).toBe(written.replaceAll(`${MAX_EXPOSITION_CHARS}`, `${small}`));
  });

  test('writes what the library writes over the SDK instruments of every kind, 500 series each', () => {
    const text = prometheusText(sdk);
    expect(text.split('\n').length).toBeGreaterThan(8000);
    expect(text).toBe(texts.at(-1));
  });
});

const LEFT_OUT = '# openresponses: metric family ';

/** A text's metric families, each from its `# HELP` line (newlines in help text and label values are escaped). */
const families = (text: string): string[] => text.split(/(?=^# HELP )/m);

/**
 * What `prometheusText(metrics, max)` serves, from the whole text: each family whole while it fits, else a
 * comment naming it while that fits, else nothing more.
 */
function expectedCut(whole: string, max: number): string {
  if (whole === '# no registered metrics') return whole;
  let text = '';
  for (const family of families(whole)) {
    if (text.length + family.length <= max) {
      text += family;
      continue;
    }
    const name = family.slice('# HELP '.length, family.indexOf(' ', '# HELP '.length));
    const comment = `${LEFT_OUT}${name} left out: the exposition would pass ${max} characters\n`;
    if (text.length + comment.length > max) break;
    text += comment;
  }
  return text;
}

/**
 * A collection as the server's own caps allow it: a gauge, then a request duration histogram at the series cap
 * (2,000 series and the overflow one, model names listed by an upstream, 14 buckets), then a counter.
 */
function atTheCaps(): ResourceMetrics {
  const descriptor = (name: string, unit = '') => ({
    name,
    description: `${name}.`,
    unit,
    valueType: ValueType.DOUBLE,
  });
  const boundaries = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
  const seriesAttributes = (i: number) => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': `org-${i % 200}/model-with-a-listed-name-${i}`,
    'error.type': i % 10 === 0 ? '' : `upstream_error_${i % 10}`,
  });
  const metrics: MetricData[] = [
    {
      descriptor: descriptor('openresponses_server_active_requests'),
      aggregationTemporality: CUMULATIVE,
      dataPointType: GAUGE,
      dataPoints: [point({}, 3)],
    },
    {
      descriptor: descriptor('gen_ai_server_request_duration_seconds', 's'),
      aggregationTemporality: CUMULATIVE,
      dataPointType: HISTOGRAM,
      dataPoints: Array.from({ length: 2001 }, (_, i) =>
        point(i === 2000 ? { 'otel.metric.overflow': true } : seriesAttributes(i), {
          buckets: { boundaries, counts: Array.from({ length: 15 }, (_, b) => (i + b) % 7) },
          sum: i / 3,
          count: 15,
          min: 0,
          max: 1,
        } as Histogram),
      ),
    },
    {
      descriptor: descriptor('openresponses_server_rejections'),
      aggregationTemporality: CUMULATIVE,
      dataPointType: SUM,
      isMonotonic: true,
      dataPoints: [point({ 'openresponses.rejection.reason': 'rate_limited' }, 12)],
    },
  ];
  return {
    resource: { attributes: {} } as ResourceMetrics['resource'],
    scopeMetrics: [{ scope: { name: 'openresponses-server' }, metrics }],
  };
}
