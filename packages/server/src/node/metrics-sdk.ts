// Metrics without spans: the metrics SDK's `MeterProvider` registered as the API's global one, as the Node SDK
// registers it (the same resource, no views, the given readers), without loading the Node SDK: for a CLI that
// exports no spans (`--metrics` alone, or OTLP metrics with OTEL_TRACES_EXPORTER=none) it loaded 419 CommonJS
// modules more (every exporter and propagator it knows) and held ~5.5 MB more live heap, which every mark-compact
// marks. The resource is also the one the CLI's own tracer and the Node SDK get (telemetry-sdk.ts).
import { DiagConsoleLogger, DiagLogLevel, diag, metrics } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

type Env = Readonly<Record<string, string | undefined>>;
type MetricsSdk = typeof import('@opentelemetry/sdk-metrics');
type Resources = typeof import('@opentelemetry/resources');

/**
 * The CLI's resource: the default one (the SDK's name and version), the process's id and runtime, what the `env`
 * (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) and `host` detectors find, then `service.name` when given. Not
 * the SDK's `process` detector: its process.command_args would export the command line, keys included
 * (--api-key). `resources`: the loaded `@opentelemetry/resources`.
 */
export function cliResource(resources: Resources, serviceName: string | undefined): Resource {
  return resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        'process.pid': process.pid,
        'process.runtime.name': 'nodejs',
        'process.runtime.version': process.versions.node,
      }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector, resources.hostDetector] }))
    .merge(serviceName === undefined ? null : resources.resourceFromAttributes({ 'service.name': serviceName }));
}

/**
 * Registers a `MeterProvider` of `readers` with `resource` as the global one, with what the Node SDK also reads
 * for it: `OTEL_LOG_LEVEL` (the API's diagnostics on the console) and `OTEL_NODE_EXPERIMENTAL_SDK_METRICS`.
 * Its `shutdown` collects and exports what the readers hold, then stops them. `sdk`: the loaded
 * `@opentelemetry/sdk-metrics`.
 */
export function registerMeterProvider(
  env: Env,
  sdk: MetricsSdk,
  resource: Resource,
  readers: MetricReader[],
): MeterProvider {
  const level = env.OTEL_LOG_LEVEL?.trim();
  if (level) diag.setLogger(new DiagConsoleLogger(), { logLevel: logLevelOf(level) });
  const provider = new sdk.MeterProvider({
    resource,
    views: [],
    readers,
    sdkMetricsEnabled: env.OTEL_NODE_EXPERIMENTAL_SDK_METRICS?.trim().toLowerCase() === 'true',
  });
  metrics.setGlobalMeterProvider(provider);
  return provider;
}

/** `OTEL_LOG_LEVEL`'s level by its name in any case (`debug`, `ALL`, …), else `INFO`, as the SDK reads it. */
function logLevelOf(name: string): DiagLogLevel {
  const level = DiagLogLevel[name.toUpperCase() as keyof typeof DiagLogLevel];
  // (The enum also maps its numbers to their names: '0' is not a level name.)
  return typeof level === 'number' ? level : DiagLogLevel.INFO;
}
