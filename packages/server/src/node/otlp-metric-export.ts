// The OTLP http/protobuf metric exporter of the Node entry: the SDK's own parts (@opentelemetry/exporter-metrics-otlp-
// proto's settings from the environment, temporality and aggregation choice, export queue and protobuf serializer,
// so a collector gets the same bytes), with each export's request made in a worker thread (`OtlpPoster`,
// ./otlp-post-worker.ts) instead of the turns' isolate. There, the SDK's node:http exchange deoptimised ~30 of the
// turns' own Node stream and http functions at the first export, which came back with megamorphic property loads
// (+4.2k instructions a stored gateway turn from then on, whatever the interval), and each later export cost
// ~38M instructions around it against ~7M through the worker, its thread included (callgrind, metered turns in
// process). Compression, client certificates and OPENRESPONSES_OTEL_METRIC_EXPORT=sdk keep the SDK's exporter
// (`ownMetricExportAllowed`).
import { createRequire } from 'node:module';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OtlpPoster } from './otlp-post-worker.js';

type Env = Readonly<Record<string, string | undefined>>;

const isSet = (text: string | undefined): text is string => text !== undefined && text.trim() !== '';

/**
 * Whether the own exporter may replace the SDK's for OTLP http/protobuf metrics: not with compression, client
 * certificates (the worker implements neither) or `OPENRESPONSES_OTEL_METRIC_EXPORT=sdk`. The caller has chosen
 * the protocol.
 */
export function ownMetricExportAllowed(env: Env): boolean {
  if (env.OPENRESPONSES_OTEL_METRIC_EXPORT?.trim().toLowerCase() === 'sdk') return false;
  const either = (name: string) => {
    const own = env[`OTEL_EXPORTER_OTLP_METRICS_${name}`];
    return isSet(own) ? own.trim() : env[`OTEL_EXPORTER_OTLP_${name}`]?.trim() || undefined;
  };
  const compression = either('COMPRESSION')?.toLowerCase();
  if (compression !== undefined && compression !== 'none') return false;
  return !(either('CERTIFICATE') || either('CLIENT_KEY') || either('CLIENT_CERTIFICATE'));
}

// The parts of the SDK's packages used here, typed without them (they are the proto exporter's dependencies,
// not the server's: loaded from where it is installed).
interface ExportResponse {
  status: 'success' | 'failure';
  error?: Error;
}
interface SdkParts {
  base: {
    createOtlpNetworkExportDelegate(options: object, serializer: object, metrics: object, transport: object): object;
    OTLPExporterError: new (message: string) => Error;
  };
  nodeHttp: {
    convertLegacyHttpOptions(
      config: object,
      signal: string,
      path: string,
      headers: Record<string, string>,
    ): { url: string; headers(): Promise<Record<string, string>>; timeoutMillis: number; compression: string };
    createOtlpHttpExporterMetrics(componentType: string, helper: object, url: string, meterProvider: undefined): object;
  };
  transformer: { ProtobufMetricsSerializer: object; MetricsExporterMetricsHelper: object };
  http: { OTLPMetricExporterBase: new (delegate: object, config?: object) => PushMetricExporter };
}

/** The SDK's parts, resolved from the installed `@opentelemetry/exporter-metrics-otlp-proto` (its own versions). */
function sdkParts(): SdkParts {
  const proto = createRequire(import.meta.url).resolve('@opentelemetry/exporter-metrics-otlp-proto');
  const load = createRequire(proto);
  return {
    base: load('@opentelemetry/otlp-exporter-base'),
    nodeHttp: load('@opentelemetry/otlp-exporter-base/node-http'),
    transformer: load('@opentelemetry/otlp-transformer'),
    http: load('@opentelemetry/exporter-metrics-otlp-http'),
  };
}

/**
 * The SDK's OTLP http/protobuf metric exporter as its `OTLPMetricExporter` builds it from the environment
 * (`OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`, `…_HEADERS`, `…_TIMEOUT`, `…_TEMPORALITY_PREFERENCE` and the general
 * variables), posting through a worker thread of its own (its retries the SDK's). Check `ownMetricExportAllowed`
 * first.
 */
export function ownMetricExporter(): PushMetricExporter {
  const { base, nodeHttp, transformer, http } = sdkParts();
  const settings = nodeHttp.convertLegacyHttpOptions({}, 'METRICS', 'v1/metrics', {
    'Content-Type': 'application/x-protobuf',
  });
  const url = new URL(settings.url);
  const poster = new OtlpPoster();
  // Started with telemetry, not at the first export (a minute in, by the CLI's default): starting a worker then
  // deoptimised 3-6 of the turns' optimised Node functions (ReadableState, addListener, listenerCount, …).
  poster.startEarly();
  const transport = {
    async send(body: Uint8Array, timeoutMs: number): Promise<ExportResponse> {
      // The poster sets content-type and content-length itself.
      const { 'Content-Type': _, ...headers } = await settings.headers();
      const { failure } = await poster.post({ url, headers, body, timeoutMs });
      return failure === undefined
        ? { status: 'success' }
        : { status: 'failure', error: new base.OTLPExporterError(failure) };
    },
    shutdown: () => void poster.close(),
  };
  // The exporter's own metrics stay off, as the SDK's exporter has them without a meter provider.
  const metrics = nodeHttp.createOtlpHttpExporterMetrics(
    'otlp_http_metric_exporter',
    transformer.MetricsExporterMetricsHelper,
    settings.url,
    undefined,
  );
  const delegate = base.createOtlpNetworkExportDelegate(
    settings,
    transformer.ProtobufMetricsSerializer,
    metrics,
    transport,
  );
  return new http.OTLPMetricExporterBase(delegate);
}
