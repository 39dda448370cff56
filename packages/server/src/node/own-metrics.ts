// The server's own aggregation of its histograms and counters (telemetry/aggregation.ts) as a `MetricProducer`
// of the metrics SDK: each metric reader the Node entry makes reads it beside the SDK's own instruments (the
// gauges), so OTLP and `GET /metrics` carry the same series as before, recorded without the SDK's per-value
// attribute hashing.
import { ValueType } from '@opentelemetry/api';
import type { MetricData, MetricProducer } from '@opentelemetry/sdk-metrics';
import { INSTRUMENTATION_SCOPE } from '../telemetry/attributes.js';
import { ownMetrics } from '../telemetry/aggregation.js';

type MetricsSdk = typeof import('@opentelemetry/sdk-metrics');

/** The readers made with the producer: only when every reader of the process is one does recording switch to it. */
const readers = new WeakSet<object>();

/** Notes that `reader` reads the own aggregation (made with `ownMetricProducer`). */
export const readsOwnMetrics = (reader: object): void => void readers.add(reader);

/** Whether `reader` reads the own aggregation. */
export const readingOwnMetrics = (reader: object): boolean => readers.has(reader);

/** The own aggregation as the SDK's `MetricProducer` (`sdk`: the loaded `@opentelemetry/sdk-metrics`). */
export function ownMetricProducer(sdk: MetricsSdk): MetricProducer {
  const { AggregationTemporality, DataPointType } = sdk;
  return {
    collect: async () => {
      const endTime = hrTime(Date.now());
      const metrics = ownMetrics()
        .collect()
        .map((instrument): MetricData => {
          const descriptor = {
            name: instrument.name,
            description: instrument.description,
            unit: instrument.unit,
            valueType: ValueType.DOUBLE,
          };
          if (instrument.kind === 'counter')
            return {
              descriptor,
              aggregationTemporality: AggregationTemporality.CUMULATIVE,
              dataPointType: DataPointType.SUM,
              isMonotonic: true,
              dataPoints: instrument.series.map((series) => ({
                attributes: series.attributes,
                startTime: hrTime(series.startTime),
                endTime,
                value: series.sum,
              })),
            };
          return {
            descriptor,
            aggregationTemporality: AggregationTemporality.CUMULATIVE,
            dataPointType: DataPointType.HISTOGRAM,
            dataPoints: instrument.series.map((series) => ({
              attributes: series.attributes,
              startTime: hrTime(series.startTime),
              endTime,
              value: {
                buckets: { boundaries: [...instrument.boundaries], counts: [...series.counts] },
                sum: series.sum,
                count: series.count,
                min: series.min,
                max: series.max,
              },
            })),
          };
        });
      return {
        // A reader keeps its SDK's resource and adds only the producer's scope metrics.
        resourceMetrics: {
          resource: undefined as never,
          scopeMetrics: metrics.length === 0 ? [] : [{ scope: { name: INSTRUMENTATION_SCOPE }, metrics }],
        },
        errors: [],
      };
    },
  };
}

/** Milliseconds since the epoch as OpenTelemetry's `[seconds, nanoseconds]`. */
const hrTime = (ms: number): [number, number] => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];
