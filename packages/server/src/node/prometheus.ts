// GET /metrics for the Node entry: a metric reader that collects when scraped, and the Prometheus text
// exposition of what it collects. The library records through @opentelemetry/api only; this is where the SDK is.
import type { MetricData, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { ownMetricProducer, readsOwnMetrics } from './own-metrics.js';
import { prometheusText } from './prometheus-text.js';
import { loadOptional, type SdkMetricReader } from './telemetry-sdk.js';

/** `GET /metrics` for the Node entry, from `prometheusEndpoint()`: a metric reader and the text it serves. */
export interface PrometheusEndpoint {
  /** Give it to the MeterProvider (or `startTelemetry`'s metric readers); it collects only when scraped. */
  reader: SdkMetricReader;
  /** The text exposition of everything recorded so far (`ResponsesServiceOptions.metrics.scrape`). */
  scrape(): Promise<string>;
}

/**
 * A pull reader for `GET /metrics` (no HTTP server of its own). Names carry their unit as Prometheus and the
 * OpenTelemetry Collector spell them (`gen_ai.server.time_to_first_token`, unit `s` ->
 * `gen_ai_server_time_to_first_token_seconds`), so dashboards work the same over a scrape and over OTLP.
 * The exporter is loaded only when this is called (like the SDK, it costs startup time).
 */
export async function prometheusEndpoint(): Promise<PrometheusEndpoint> {
  const { PrometheusExporter } = await loadOptional(
    '@opentelemetry/exporter-prometheus',
    '--metrics (GET /metrics)',
    () => import('@opentelemetry/exporter-prometheus'),
  );
  const sdk = await loadOptional(
    '@opentelemetry/sdk-metrics',
    '--metrics (GET /metrics)',
    () => import('@opentelemetry/sdk-metrics'),
  );
  const reader = new PrometheusExporter({ preventServerStart: true, metricProducers: [ownMetricProducer(sdk)] });
  readsOwnMetrics(reader);
  return {
    reader,
    scrape: async () => {
      const { resourceMetrics, errors } = await reader.collect();
      for (const error of errors) console.error('openresponses-server: metrics collection error', error);
      // Without target_info: the resource (host name, pid, runtime version) is not for whoever holds a scrape key.
      return prometheusText(withUnitSuffixes(resourceMetrics), MAX_EXPOSITION_CHARS);
    },
  };
}

/**
 * The largest exposition served (4 MiB): label values are bounded, and this bounds what they could still add up to
 * (a family that would pass it is left out whole, and the others served: `prometheusText`).
 */
export const MAX_EXPOSITION_CHARS = 4 * 1024 * 1024;

/** Prometheus unit words of the UCUM units this server's instruments use; `{…}` annotations add nothing. */
const UNIT_WORDS: Readonly<Record<string, string>> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

/** The same metrics, each name ending in its unit word (once). */
function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    ...resourceMetrics,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((metric): MetricData => {
        const word = UNIT_WORDS[metric.descriptor.unit];
        const name = metric.descriptor.name;
        if (!word || name.endsWith(`_${word}`) || name.endsWith(`.${word}`)) return metric;
        return { ...metric, descriptor: { ...metric.descriptor, name: `${name}_${word}` } } as MetricData;
      }),
    })),
  };
}
