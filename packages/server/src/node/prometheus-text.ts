// The Prometheus text exposition of collected metrics: the text `PrometheusSerializer(undefined, undefined,
// undefined, true)` of @opentelemetry/exporter-prometheus 0.223 writes (no target_info, scope labels kept),
// byte for byte (test/prometheus-text.test.ts compares the two). Ours because a scrape is never hot enough to
// be optimised and the library escapes each label with three regular-expression replaces on every line of
// every series: ours writes a series' labels once and escapes only a value that needs it. A scrape of the CLI
// after a few turns (293 lines), collect included: 0.84 M instructions, 8.7 M with the library; with 300 series
// on each histogram and counter (20,874 lines, 4 MB): 99 M, 2,070 M (callgrind, built package). Near the caps
// it serves the families that fit in 4 MiB and does not write those that do not (2,000 series on each
// instrument: the counters and gauges served, 1 MB, the histograms left out; 310 M instructions with collect).
import type { DataPoint, Histogram, MetricData, ResourceMetrics, ScopeMetrics } from '@opentelemetry/sdk-metrics';

/** `DataPointType` of @opentelemetry/sdk-metrics (a const enum there; the SDK is loaded only when asked for). */
const HISTOGRAM = 0;
const GAUGE = 2;
const SUM = 3;

/**
 * The exposition of `resourceMetrics` (units already in the names: `withUnitSuffixes`), at most `max` characters:
 * each metric family whole, or, if it would pass `max`, left out with a comment naming it (still valid text
 * format), and the next one tried, so the small families (gauges, counters) are served even when a histogram near
 * the label caps is too large. A family left out is not written to its end (near the caps that is tens of MB): a
 * histogram whose series' lines, without numbers or escapes, already pass its room is not written at all, any
 * other only until it passes. Once even a family's comment does not fit, the text ends there.
 */
export function prometheusText(resourceMetrics: ResourceMetrics, max = Number.POSITIVE_INFINITY): string {
  let text = '';
  let leftOut = false;
  for (const { scope, metrics } of resourceMetrics.scopeMetrics) {
    const scopeLabels = scopeLabelsOf(scope);
    for (const metric of metrics) {
      const room = max - text.length;
      const family = metricText(metric, scopeLabels, room);
      if (typeof family === 'string') {
        text += family;
        continue;
      }
      leftOut = true;
      const comment = `# openresponses: metric family ${family.tooLong} left out: the exposition would pass ${max} characters\n`;
      if (comment.length > room) return text;
      text += comment;
    }
  }
  return text === '' && !leftOut ? '# no registered metrics' : text;
}

function scopeLabelsOf(scope: ScopeMetrics['scope']): string {
  let labels = `otel_scope_name="${labelValue(scope.name)}"`;
  if (scope.schemaUrl) labels += `,otel_scope_schema_url="${labelValue(scope.schemaUrl)}"`;
  if (scope.version) labels += `,otel_scope_version="${labelValue(scope.version)}"`;
  return labels;
}

/** A metric family's text, or the name of one longer than `room` (written only until it is, if at all). */
function metricText(metric: MetricData, scopeLabels: string, room: number): string | { tooLong: string } {
  let name = metricName(metric.descriptor.name);
  // The library logs these two and leaves the metric out.
  if (name === '' || name === '_') return '';
  if (name[0] >= '0' && name[0] <= '9') name = `_${name}`;
  const counter = metric.dataPointType === SUM && metric.isMonotonic;
  if (counter && !name.endsWith('_total')) name += '_total';
  const { description, unit } = metric.descriptor;
  let text = `# HELP ${name} ${escaped(description || 'description missing')}\n`;
  if (unit) text += `# UNIT ${name} ${escaped(unit)}\n`;
  text += `# TYPE ${name} ${typeName(metric, counter)}\n`;
  if (metric.dataPointType === SUM || metric.dataPointType === GAUGE) {
    for (const point of metric.dataPoints as DataPoint<number>[]) {
      if (text.length > room) break;
      text += `${name}{${seriesLabels(point.attributes, scopeLabels)}} ${sampleValue(point.value)}\n`;
    }
  } else if (metric.dataPointType === HISTOGRAM) {
    if (text.length + bucketLinesFloor(name, metric.dataPoints, scopeLabels, room) > room) return { tooLong: name };
    for (const point of metric.dataPoints) {
      if (text.length > room) break;
      text += histogramText(name, point, scopeLabels);
    }
  }
  return text.length > room ? { tooLong: name } : text;
}

/**
 * At most as many characters as the bucket lines of `points` take (`histogramText`): each writes a line for each of its
 * counts or each of its boundaries, whichever fewer, each line at least its name, `_bucket{`, its labels with values
 * unescaped, `,le="`, a digit, `"} `, a digit and a newline. Counted only until past `room`.
 */
function bucketLinesFloor(name: string, points: DataPoint<Histogram>[], scopeLabels: string, room: number): number {
  let floor = 0;
  for (const point of points) {
    let labels = scopeLabels.length;
    for (const key of Object.keys(point.attributes)) {
      const value = point.attributes[key];
      labels += labelName(key).length + '="",'.length + (typeof value === 'string' ? value.length : 0);
    }
    const { boundaries, counts } = point.value.buckets;
    const lines = Math.min(counts.length, boundaries.length);
    floor += lines * (name.length + '_bucket{,le="0"} 0\n'.length + labels);
    if (floor > room) break;
  }
  return floor;
}

function histogramText(name: string, point: DataPoint<Histogram>, scopeLabels: string): string {
  const labels = seriesLabels(point.attributes, scopeLabels);
  const { count, sum, buckets } = point.value;
  let text = count != null ? `${name}_count{${labels}} ${sampleValue(count)}\n` : '';
  if (sum != null) text += `${name}_sum{${labels}} ${sampleValue(sum)}\n`;
  const bucket = `${name}_bucket{${labels},le="`;
  const { boundaries, counts } = buckets;
  let cumulative = 0;
  let infinityBounded = false;
  // As the library: a last count past the boundaries is +Inf's, unless a boundary was Infinity already.
  for (let index = 0; index < counts.length; index++) {
    cumulative += counts[index];
    const bound = boundaries[index];
    if (bound === undefined && infinityBounded) break;
    if (bound === Infinity) infinityBounded = true;
    const le = bound === undefined || bound === Infinity ? '+Inf' : String(bound);
    text += `${bucket}${le}"} ${sampleValue(cumulative)}\n`;
  }
  return text;
}

function typeName(metric: MetricData, counter: boolean): string {
  if (counter) return 'counter';
  if (metric.dataPointType === SUM || metric.dataPointType === GAUGE) return 'gauge';
  return metric.dataPointType === HISTOGRAM ? 'histogram' : 'untyped';
}

/** A data point's labels, then the scope's, without the braces. */
function seriesLabels(attributes: DataPoint<unknown>['attributes'], scopeLabels: string): string {
  let labels = '';
  for (const key of Object.keys(attributes)) labels += `${labelName(key)}="${labelValue(attributes[key])}",`;
  return labels + scopeLabels;
}

/** Label names seen, sanitised: a few attribute keys, each met on every series. */
const labelNames = new Map<string, string>();
function labelName(key: string): string {
  let name = labelNames.get(key);
  if (name === undefined) {
    name = sanitized(key);
    if (labelNames.size < 1024) labelNames.set(key, name);
  }
  return name;
}

const sanitized = (name: string): string => name.replace(/[^a-z0-9_]/gi, '_').replace(/_{2,}/g, '_');
const metricName = (name: string): string => sanitized(escaped(name));

/** Backslash and newline escaped (HELP text; a metric name before it is sanitised). */
const escaped = (text: string): string =>
  /[\\\n]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n') : text;

/** A label value: a string as it is, any other value as JSON, `undefined` empty; then escaped with `"`. */
function labelValue(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? '' : (JSON.stringify(value) as string);
  return /[\\\n"]/.test(text) ? escaped(text).replace(/"/g, '\\"') : text;
}

function sampleValue(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return `${value}`;
}
