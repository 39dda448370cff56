// The OpenTelemetry Node SDK for the CLI. The library itself depends only on @opentelemetry/api (a no-op
// until an SDK is registered, so an embedding app keeps control); the CLI registers the SDK when the
// standard environment asks for it, and loads it only then (the SDK and its exporters cost startup time).
import type { MetricReader } from '@opentelemetry/sdk-metrics';

type Env = Readonly<Record<string, string | undefined>>;

/** What the environment asks for; `disabled` when `OTEL_SDK_DISABLED=true` (then nothing is registered at all). */
export interface TelemetryPlan {
  disabled: boolean;
  /** Export spans: `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or an OTLP (traces) endpoint is set. */
  traces: boolean;
  /** Export metrics over OTLP: `OTEL_METRICS_EXPORTER` has `otlp`, or an OTLP (metrics) endpoint is set without that variable. */
  otlpMetrics: boolean;
  /** `OTEL_METRICS_EXPORTER` has `console`. */
  consoleMetrics: boolean;
}

const listOf = (text: string | undefined) =>
  text === undefined || text.trim() === ''
    ? undefined
    : text
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean);
const isSet = (text: string | undefined) => text !== undefined && text.trim() !== '';

/** Reads the standard OpenTelemetry environment variables (the SDK's own names and meanings). */
export function telemetryPlan(env: Env): TelemetryPlan {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true')
    return { disabled: true, traces: false, otlpMetrics: false, consoleMetrics: false };
  const endpoint = isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const traceExporters = listOf(env.OTEL_TRACES_EXPORTER);
  const metricExporters = listOf(env.OTEL_METRICS_EXPORTER);
  return {
    disabled: false,
    traces: traceExporters
      ? traceExporters.some((name) => name !== 'none')
      : endpoint || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    otlpMetrics: metricExporters
      ? metricExporters.includes('otlp')
      : endpoint || isSet(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
    consoleMetrics: metricExporters?.includes('console') ?? false,
  };
}

/** What `startTelemetry` takes besides the environment. */
export interface TelemetryOptions {
  /** More metric readers (the Prometheus exporter behind `GET /metrics`), registered even without OTLP in the environment. */
  metricReaders?: readonly MetricReader[];
  /** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one (default `openresponses-server`). */
  serviceName?: string;
}

/** The registered OpenTelemetry SDK, from `startTelemetry`. */
export interface Telemetry {
  /** What the environment asked for (traces, OTLP or console metrics, or nothing). */
  readonly plan: TelemetryPlan;
  /** True when an SDK was registered (spans or metrics go somewhere). */
  readonly started: boolean;
  /** Exports what is buffered and stops (at most `timeoutMs`, default 5 s: a dead collector never holds up an exit). */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * Registers the OpenTelemetry Node SDK as the environment asks (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`/`_METRICS_ENDPOINT`, `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, `http/json` or `grpc`), `OTEL_SERVICE_NAME`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_PROPAGATORS`, …), plus `metricReaders`. `OTEL_SDK_DISABLED=true`
 * registers nothing, the extra readers included. The SDK reads the same variables from `process.env`: pass it.
 */
export async function startTelemetry(env: Env, options: TelemetryOptions = {}): Promise<Telemetry> {
  const plan = telemetryPlan(env);
  const extra = plan.disabled ? [] : (options.metricReaders ?? []);
  if (!plan.traces && !plan.otlpMetrics && !plan.consoleMetrics && extra.length === 0)
    return { plan, started: false, shutdown: async () => {} };
  const [{ NodeSDK }, { PeriodicExportingMetricReader, ConsoleMetricExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
  ]);
  const interval = positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000;
  const periodic = (exporter: ConstructorParameters<typeof PeriodicExportingMetricReader>[0]['exporter']) =>
    new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: interval,
      exportTimeoutMillis: Math.min(interval, positive(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? 30_000),
    });
  const readers: MetricReader[] = [];
  if (plan.otlpMetrics) readers.push(periodic(await otlpMetricExporter(env)));
  if (plan.consoleMetrics) readers.push(periodic(new ConsoleMetricExporter()));
  readers.push(...extra);
  const named = isSet(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : (options.serviceName ?? 'openresponses-server'),
    // Not the SDK's process detector: its process.command_args would export the command line, keys included
    // (--api-key). The process's id and runtime instead; OTEL_NODE_RESOURCE_DETECTORS still chooses when set.
    ...(isSet(env.OTEL_NODE_RESOURCE_DETECTORS)
      ? {}
      : {
          resourceDetectors: [resources.envDetector, resources.hostDetector],
          resource: resources.defaultResource().merge(
            resources.resourceFromAttributes({
              'process.pid': process.pid,
              'process.runtime.name': 'nodejs',
              'process.runtime.version': process.versions.node,
            }),
          ),
        }),
    // Without a traces exporter asked for, no tracer provider is registered (spans stay no-ops), and no
    // propagator either.
    spanProcessors: plan.traces ? undefined : [],
    // Never a context manager: the server passes each span's parent explicitly (telemetry/tracing.ts), and
    // on Node 20 the SDK's default AsyncLocalStorage one taxes every promise (+60% CPU per SSE turn).
    // (The SDK reads null as "register none"; its type leaves null out.)
    contextManager: null as unknown as undefined,
    textMapPropagator: plan.traces ? undefined : null,
    metricReaders: readers,
    // The server writes its logs to stdout/stderr (see --log-format); no OpenTelemetry log exporter.
    logRecordProcessors: [],
  });
  sdk.start();
  return {
    plan,
    started: true,
    shutdown: (timeoutMs = 5000) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref?.();
      });
      return Promise.race([sdk.shutdown().catch(() => {}), late]).finally(() => clearTimeout(timer));
    },
  };
}

/** The OTLP metric exporter of the protocol the environment names (the SDK's rule: metrics' own variable, then the general one). */
async function otlpMetricExporter(env: Env) {
  const protocol =
    (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf';
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter();
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-metrics-otlp-grpc')).OTLPMetricExporter();
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return isSet(text) && Number.isFinite(value) && value > 0 ? value : undefined;
}
