// The Prometheus text exposition of collected metrics: the text `PrometheusSerializer(undefined, undefined,
// undefined, true)` of @opentelemetry/exporter-prometheus 0.223 writes (no target_info, scope labels kept),
// byte for byte (test/prometheus-text.test.ts compares the two). Ours because a scrape is never hot enough to
// be optimised and the library escapes each label with three regular-expression replaces on every line of
// every series: ours writes a series' labels once and escapes only a value that needs it. A scrape of the CLI
// after a few turns (293 lines), collect included: 0.84 M instructions, 8.7 M with the library; with 300 series
// on each histogram and counter (20,874 lines, 4 MB): 99 M, 2,070 M (callgrind, built package). Near the caps
// it also stops writing past the 4 MiB the scrape serves (2,000 series each: 31 ms of CPU, 2 s with the library).
import type { DataPoint, Histogram, MetricData, ResourceMetrics, ScopeMetrics } from '@opentelemetry/sdk-metrics';

/** `DataPointType` of @opentelemetry/sdk-metrics (a const enum there; the SDK is loaded only when asked for). */
const HISTOGRAM = 0;
const GAUGE = 2;
const SUM = 3;

/**
 * The exposition of `resourceMetrics` (units already in the names: `withUnitSuffixes`), or its beginning, ended
 * anywhere once past `max` + 1 characters: `boundedExposition(text, max)` cuts it where it cuts the whole text (at
 * the last family starting before `max`, whose header is written whole), so a scrape near the label caps does
 * not write tens of MB to serve 4 MiB.
 */
export function prometheusText(resourceMetrics: ResourceMetrics, max = Number.POSITIVE_INFINITY): string {
  let text = '';
  for (const { scope, metrics } of resourceMetrics.scopeMetrics) {
    const scopeLabels = scopeLabelsOf(scope);
    for (const metric of metrics) {
      text += metricText(metric, scopeLabels, max + 1 - text.length);
      if (text.length > max + 1) return text;
    }
  }
  return text === '' ? '# no registered metrics' : text;
}

function scopeLabelsOf(scope: ScopeMetrics['scope']): string {
  let labels = `otel_scope_name="${labelValue(scope.name)}"`;
  if (scope.schemaUrl) labels += `,otel_scope_schema_url="${labelValue(scope.schemaUrl)}"`;
  if (scope.version) labels += `,otel_scope_version="${labelValue(scope.version)}"`;
  return labels;
}

/** A metric family: its header, then its series until the text is longer than `room`. */
function metricText(metric: MetricData, scopeLabels: string, room: number): string {
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
    for (const point of metric.dataPoints) {
      if (text.length > room) break;
      text += histogramText(name, point, scopeLabels);
    }
  }
  return text;
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
