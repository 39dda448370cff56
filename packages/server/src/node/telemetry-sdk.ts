// The OpenTelemetry Node SDK for the CLI. The library itself depends only on @opentelemetry/api (a no-op
// until an SDK is registered, so an embedding app keeps control); the CLI registers the SDK when the
// standard environment asks for it, and loads it only then. The SDK and its exporters are optional peer
// dependencies (67 MB with gRPC): installed by whoever asks for telemetry, named when missing. Spans over
// OTLP http/protobuf (the default) go through our own processor and encoder (./otlp-span-export.ts); metrics
// without spans through the metrics SDK alone (./metrics-sdk.ts).
import { ProxyTracerProvider, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { recordOwnMetrics } from '../telemetry/aggregation.js';
import { HEAD_SAMPLED, type HeadSampler, sampleAtHead } from '../telemetry/head-sampling.js';
import { cliResource, registerMeterProvider } from './metrics-sdk.js';
import { OwnTracerProvider, ownTracerAllowed } from './own-tracer.js';
import { OtlpSpanExport, ownSpanExportSettings, type SpanExportCounts } from './otlp-span-export.js';
import { ownMetricProducer, readingOwnMetrics } from './own-metrics.js';
import { ownMetricExportAllowed, ownMetricExporter } from './otlp-metric-export.js';
import { withoutCredentials } from './store-url.js';

/** Every optional OpenTelemetry package the CLI may load, for one install line. */
export const TELEMETRY_PACKAGES = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-metrics-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-grpc',
  '@opentelemetry/exporter-prometheus',
] as const;

/** An optional package that a setting needs is not installed. */
export class MissingTelemetryPackageError extends Error {
  /** `'MissingTelemetryPackageError'`. */
  override name = 'MissingTelemetryPackageError';
  constructor(
    /** The optional package that is not installed (`npm install` it). */
    readonly packageName: string,
    purpose: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      `${purpose} needs ${packageName}, which is not installed (the OpenTelemetry SDK is optional): npm install ${packageName}`,
      options,
    );
  }
}

/** Loads an optional package, or fails with the one line that names it (any other failure keeps its own error). */
export async function loadOptional<T>(packageName: string, purpose: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(packageName))
      throw new MissingTelemetryPackageError(packageName, purpose, { cause: error });
    throw error;
  }
}

/**
 * A metric reader of `@opentelemetry/sdk-metrics` (its `MetricReader`). Typed as an object here so that these
 * declarations need no optional package installed.
 */
export type SdkMetricReader = object;

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

const ONE_OF: Readonly<Record<string, readonly string[]>> = {
  OTEL_SDK_DISABLED: ['true', 'false'],
  OTEL_TRACES_EXPORTER: ['otlp', 'zipkin', 'jaeger', 'console', 'none'],
  OTEL_METRICS_EXPORTER: ['otlp', 'prometheus', 'console', 'none'],
  OTEL_LOGS_EXPORTER: ['otlp', 'console', 'none'],
  OTEL_EXPORTER_OTLP_PROTOCOL: ['grpc', 'http/protobuf', 'http/json'],
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ['grpc', 'http/protobuf', 'http/json'],
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: ['grpc', 'http/protobuf', 'http/json'],
  OTEL_TRACES_SAMPLER: [
    'always_on',
    'always_off',
    'traceidratio',
    'parentbased_always_on',
    'parentbased_always_off',
    'parentbased_traceidratio',
    'jaeger_remote',
    'parentbased_jaeger_remote',
  ],
  OTEL_PROPAGATORS: ['tracecontext', 'baggage', 'b3', 'b3multi', 'jaeger', 'xray', 'ottrace', 'none'],
};
const LISTS = new Set(['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER', 'OTEL_PROPAGATORS']);
const ENDPOINTS = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];
const MILLISECONDS = ['OTEL_METRIC_EXPORT_INTERVAL', 'OTEL_METRIC_EXPORT_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'];

/**
 * The first OTEL_* value the SDK would ignore without a word (an unknown exporter, protocol, sampler or
 * propagator, a ratio outside 0..1, an endpoint that is not an http(s) URL, a non-positive interval), as one line
 * naming the variable; `undefined` when every value set is one the SDK uses. Endpoint values are never quoted
 * (they may carry a token).
 */
export function telemetryEnvironmentProblem(env: Env): string | undefined {
  for (const [name, allowed] of Object.entries(ONE_OF)) {
    const text = env[name];
    if (!isSet(text)) continue;
    const values = LISTS.has(name) ? (listOf(text) ?? []) : [text!.trim().toLowerCase()];
    const wrong = values.find((value) => !allowed.includes(value));
    if (wrong !== undefined)
      return `${name}=${JSON.stringify(wrong.slice(0, 40))} is not ${LISTS.has(name) ? 'among' : 'one of'} ${allowed.join(', ')}.`;
  }
  const sampler = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() ?? '';
  if (sampler.endsWith('traceidratio') && isSet(env.OTEL_TRACES_SAMPLER_ARG)) {
    const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG);
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
      return `OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(env.OTEL_TRACES_SAMPLER_ARG!.slice(0, 40))} is not a ratio from 0 to 1 (for ${sampler}).`;
  }
  for (const name of ENDPOINTS) {
    const text = env[name]?.trim();
    if (text && !(URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)))
      return `${name} is not an http(s) URL (such as http://127.0.0.1:4318).`;
  }
  for (const name of MILLISECONDS)
    if (isSet(env[name]) && positive(env[name]) === undefined)
      return `${name}=${JSON.stringify(env[name]!.slice(0, 40))} is not a positive number of milliseconds.`;
  return undefined;
}

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

/**
 * The startup banner's line of what goes out over OTLP (`OpenTelemetry: spans and metrics over OTLP
 * http/protobuf to …`, the endpoint without credentials), each signal by its own protocol variable
 * (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, …) before the general one; undefined when nothing does.
 */
export function otlpBannerLine(plan: TelemetryPlan, env: Env): string | undefined {
  const protocolOf = (signal: 'TRACES' | 'METRICS') =>
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf';
  const signals = [
    plan.traces && { name: 'spans', protocol: protocolOf('TRACES') },
    plan.otlpMetrics && { name: 'metrics', protocol: protocolOf('METRICS') },
  ].filter((signal) => signal !== false);
  if (signals.length === 0) return undefined;
  const what = signals.every((signal) => signal.protocol === signals[0]!.protocol)
    ? `${signals.map((signal) => signal.name).join(' and ')} over OTLP ${signals[0]!.protocol}`
    : signals.map((signal) => `${signal.name} over OTLP ${signal.protocol}`).join(' and ');
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return `OpenTelemetry: ${what}${endpoint ? ` to ${withoutCredentials(endpoint)}` : ''}`;
}

/** What `startTelemetry` takes besides the environment. */
export interface TelemetryOptions {
  /** More metric readers (the Prometheus exporter behind `GET /metrics`), registered even without OTLP in the environment. */
  metricReaders?: readonly SdkMetricReader[];
  /** `service.name` when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` names one (default `openresponses-server`). */
  serviceName?: string;
}

/** The registered OpenTelemetry SDK, from `startTelemetry`. */
export interface Telemetry {
  /** What the environment asked for (traces, OTLP or console metrics, or nothing). */
  readonly plan: TelemetryPlan;
  /** True when an SDK was registered (spans or metrics go somewhere). */
  readonly started: boolean;
  /**
   * What the CLI's own span export has sent, dropped and lost so far (see `ownSpanExportSettings`); undefined
   * when the SDK's exporter sends the spans (another protocol or setting) or no spans are exported.
   */
  spanExport(): SpanExportCounts | undefined;
  /** Exports what is buffered and stops (at most `timeoutMs`, default 5 s: a dead collector never holds up an exit). */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * Registers the OpenTelemetry Node SDK as the environment asks (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`/`_METRICS_ENDPOINT`, `OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, `http/json` or `grpc`), `OTEL_SERVICE_NAME`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_PROPAGATORS`, …), plus `metricReaders`. `OTEL_SDK_DISABLED=true`
 * registers nothing, the extra readers included. The SDK reads the same variables from `process.env`: pass it.
 * Without spans to export, only the metrics SDK is loaded and registered (./metrics-sdk.ts), not the Node SDK.
 */
export async function startTelemetry(env: Env, options: TelemetryOptions = {}): Promise<Telemetry> {
  const plan = telemetryPlan(env);
  const extra = plan.disabled ? [] : (options.metricReaders ?? []);
  if (!plan.traces && !plan.otlpMetrics && !plan.consoleMetrics && extra.length === 0)
    return { plan, started: false, spanExport: () => undefined, shutdown: async () => {} };
  const purpose = plan.traces || plan.otlpMetrics || plan.consoleMetrics ? 'OTEL_* telemetry' : 'GET /metrics';
  const [metricsSdk, resources] = await Promise.all([
    loadOptional('@opentelemetry/sdk-metrics', purpose, () => import('@opentelemetry/sdk-metrics')),
    loadOptional('@opentelemetry/resources', purpose, () => import('@opentelemetry/resources')),
  ]);
  const { PeriodicExportingMetricReader, ConsoleMetricExporter } = metricsSdk;
  const interval = positive(env.OTEL_METRIC_EXPORT_INTERVAL) ?? 60_000;
  const periodic = (exporter: ConstructorParameters<typeof PeriodicExportingMetricReader>[0]['exporter']) =>
    new PeriodicExportingMetricReader({
      exporter,
      metricProducers: [ownMetricProducer(metricsSdk)],
      exportIntervalMillis: interval,
      exportTimeoutMillis: Math.min(interval, positive(env.OTEL_METRIC_EXPORT_TIMEOUT) ?? 30_000),
    });
  const readers: MetricReader[] = [];
  if (plan.otlpMetrics) readers.push(periodic(await otlpMetricExporter(env)));
  if (plan.consoleMetrics) readers.push(periodic(new ConsoleMetricExporter()));
  // Every reader reads the own aggregation (the extra ones when made by prometheusEndpoint): record into it.
  if (extra.every(readingOwnMetrics)) recordOwnMetrics();
  readers.push(...(extra as MetricReader[]));
  const named = isSet(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const serviceName = named ? undefined : (options.serviceName ?? 'openresponses-server');
  // OTEL_NODE_RESOURCE_DETECTORS names the SDK's detectors: then the Node SDK detects, else the CLI's resource.
  const resource = isSet(env.OTEL_NODE_RESOURCE_DETECTORS) ? undefined : cliResource(resources, serviceName);
  // Without spans, the metrics SDK alone: the Node SDK would register nothing more.
  if (!plan.traces && resource) {
    const provider = registerMeterProvider(env, metricsSdk, resource, readers);
    return { plan, started: true, spanExport: () => undefined, shutdown: stopWithin(() => provider.shutdown()) };
  }
  const { NodeSDK, tracing: traceSdk } = await loadOptional(
    '@opentelemetry/sdk-node',
    purpose,
    () => import('@opentelemetry/sdk-node'),
  );
  const sampling = plan.traces ? traceSampling(env, traceSdk) : undefined;
  // OTLP http/protobuf spans through our own processor (each span encoded as it ends), else the SDK's.
  const spanSettings = plan.traces ? ownSpanExportSettings(env) : undefined;
  const spanExport =
    spanSettings && new OtlpSpanExport(spanSettings, (message) => console.warn(`openresponses-server: ${message}`));
  // Spans through the own tracer too (./own-tracer.ts) when nothing asks for what only the SDK's does.
  const ownTracer =
    spanExport && sampling && resource && ownTracerAllowed(env)
      ? new OwnTracerProvider(spanExport, resource, sampling.sampler)
      : undefined;
  const sdk = new NodeSDK({
    ...(resource ? { resource, autoDetectResources: false } : { serviceName }),
    // Without a traces exporter asked for, no tracer provider is registered (spans stay no-ops), and no
    // propagator either. With the own tracer, the SDK registers none: the own one is registered below.
    spanProcessors: plan.traces
      ? ownTracer
        ? []
        : spanExport
          ? [spanExport as unknown as SpanProcessor]
          : undefined
      : [],
    // The environment's sampler, recording what the head sampler decided to record (see traceSampling).
    sampler: sampling?.sampler,
    // Never a context manager: the server passes each span's parent explicitly (telemetry/tracing.ts), and
    // on Node 20 the SDK's default AsyncLocalStorage one taxes every promise (+60% CPU per SSE turn).
    // (The SDK reads null as "register none"; its type leaves null out.)
    contextManager: null as unknown as undefined,
    textMapPropagator: plan.traces ? undefined : null,
    metricReaders: readers,
    // The server writes its logs to stdout/stderr (see --log-format); no OpenTelemetry log exporter.
    logRecordProcessors: [],
  });
  const before = registeredTracerProvider();
  sdk.start();
  if (ownTracer) trace.setGlobalTracerProvider(ownTracer);
  // The head sampler decides for the provider this SDK registered (not for one registered before it).
  const registered = registeredTracerProvider();
  if (sampling && registered !== before) sampleAtHead(registered, sampling.head);
  return {
    plan,
    started: true,
    spanExport: () => spanExport?.counted(),
    shutdown: stopWithin(() => Promise.all([sdk.shutdown().catch(() => {}), ownTracer?.shutdown().catch(() => {})])),
  };
}

/** `Telemetry.shutdown`: runs `stop` and waits for it at most `timeoutMs` (default 5 s). */
function stopWithin(stop: () => Promise<unknown>): Telemetry['shutdown'] {
  return (timeoutMs = 5000) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref?.();
    });
    // Neither rejects.
    return Promise.race([stop().catch(() => {}), late]).then(() => clearTimeout(timer));
  };
}

/** The tracer provider registered with the API (the one behind its proxy). */
function registeredTracerProvider() {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
}

type TraceSdk = typeof import('@opentelemetry/sdk-node')['tracing'];
type SpanProcessor = InstanceType<TraceSdk['BatchSpanProcessor']>;
/** The SDK's `Sampler` (named through sdk-node, the optional peer dependency that carries it). */
type Sampler = ConstructorParameters<TraceSdk['ParentBasedSampler']>[0]['root'];

/**
 * The sampling `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` ask for (the SDK's names, in any case, and
 * its defaults: `parentbased_always_on`, a ratio of 1), decided at the head of each trace (`HeadSampler`:
 * a dropped trace never reaches the SDK), and the SDK sampler that goes with it: it records what the head
 * decided to record (for a new trace the head draws its own chance, which the SDK's ratio on its new trace id
 * would otherwise draw again) and samples any other span (an application's own) as the environment says.
 * Undefined for a sampler the head cannot run (`jaeger_remote`): the SDK then decides alone, as before.
 * `traceSdk`: the loaded `@opentelemetry/sdk-trace-base`.
 */
function traceSampling(env: Env, traceSdk: TraceSdk): { head: HeadSampler; sampler: Sampler } | undefined {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const parentBased = name.startsWith('parentbased_');
  const rule = parentBased ? name.slice('parentbased_'.length) : name;
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, SamplingDecision, TraceIdRatioBasedSampler } =
    traceSdk;
  let root: Sampler;
  let sampled: HeadSampler['sampled'];
  if (rule === 'always_on') {
    root = new AlwaysOnSampler();
    sampled = () => true;
  } else if (rule === 'always_off') {
    root = new AlwaysOffSampler();
    sampled = () => false;
  } else if (rule === 'traceidratio') {
    const text = env.OTEL_TRACES_SAMPLER_ARG;
    const given = Number(text);
    const ratio = isSet(text) && given >= 0 && given <= 1 ? given : 1;
    const byTraceId = new TraceIdRatioBasedSampler(ratio);
    root = byTraceId;
    // A parent's trace id decides as the SDK's ratio sampler would (so every service keeps the same traces).
    sampled = (traceId) =>
      traceId === undefined
        ? Math.random() < ratio
        : byTraceId.shouldSample(ROOT_CONTEXT, traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
  } else return undefined;
  const fallback = parentBased ? new ParentBasedSampler({ root }) : root;
  const recorded = { decision: SamplingDecision.RECORD_AND_SAMPLED };
  return {
    head: { parentBased, sampled },
    sampler: {
      shouldSample: (context, ...rest) =>
        context.getValue(HEAD_SAMPLED) === true ? recorded : fallback.shouldSample(context, ...rest),
      toString: () => `HeadSampled{${fallback.toString()}}`,
    },
  };
}

/** The OTLP metric exporter of the protocol the environment names (the SDK's rule: metrics' own variable, then the general one). */
async function otlpMetricExporter(env: Env) {
  const protocol =
    (env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf';
  const purpose = `OTLP metrics over ${protocol}`;
  if (protocol === 'http/json') {
    const name = '@opentelemetry/exporter-metrics-otlp-http';
    return new (
      await loadOptional(name, purpose, () => import('@opentelemetry/exporter-metrics-otlp-http'))
    ).OTLPMetricExporter();
  }
  if (protocol === 'grpc') {
    const name = '@opentelemetry/exporter-metrics-otlp-grpc';
    return new (
      await loadOptional(name, purpose, () => import('@opentelemetry/exporter-metrics-otlp-grpc'))
    ).OTLPMetricExporter();
  }
  const name = '@opentelemetry/exporter-metrics-otlp-proto';
  const proto = await loadOptional(name, purpose, () => import('@opentelemetry/exporter-metrics-otlp-proto'));
  // The SDK's exporter with its requests in a worker thread (./otlp-metric-export.ts) unless a setting needs its own.
  return ownMetricExportAllowed(env) ? ownMetricExporter() : new proto.OTLPMetricExporter();
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return isSet(text) && Number.isFinite(value) && value > 0 ? value : undefined;
}
