// The CLI's tracer of its own behind the OpenTelemetry API's `Tracer` and `Span` (telemetry/tracing.ts and the
// server's span calls are unchanged): ids kept as bytes of a pooled random buffer (hex only when read), one
// `performance.now()` a start and an end (./span-clock.ts), the starting attributes kept as given (the server's
// frozen attribute sets, whose encoding is then reused), each span handed at its end to the OTLP export
// (./otlp-span-export.ts), which encodes it at once. Sampling is the environment's (the SDK's sampler, as
// telemetry-sdk.ts builds it). Why: bench/telemetry.bench.ts's profile note. Span limits it does not implement
// (OTEL_SPAN_*/OTEL_ATTRIBUTE_* set) keep the SDK's tracer (`ownTracerAllowed`). The server's own spans are made
// in their fixed shape (`startFixed`, telemetry/own-spans.ts) unless the provider is asked for the API path only.
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context as apiContext,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { SpanResource, SpanScopeName } from '../telemetry/encodable-span.js';
import { HEAD_SAMPLED } from '../telemetry/head-sampling.js';
import type { OwnSpanTracer, SpanShape } from '../telemetry/own-spans.js';
import { SpanIds } from '../telemetry/span-ids.js';
import { EMPTY, type EndedSpans, OwnSpan } from './own-span.js';
import { OwnFixedSpan } from './own-fixed-span.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The part of the SDK's `Sampler` the tracer asks (decision 2 is RECORD_AND_SAMPLED). */
export interface SpanSampler {
  /** The SDK's `Sampler.shouldSample`. */
  shouldSample(
    context: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): {
    /** The SDK's `SamplingDecision`: 2 records and samples the span, anything else drops it. */
    decision: number;
  };
}
const RECORD_AND_SAMPLED = 2;

export type { EndedSpans } from './own-span.js';

/** Whether the environment sets nothing the own tracer leaves out (span limits, which the SDK's applies). */
export const ownTracerAllowed = (env: Env): boolean =>
  !Object.keys(env).some(
    (name) => /^OTEL_(SPAN|EVENT|LINK|ATTRIBUTE)_\w*LIMIT$/.test(name) && (env[name] ?? '').trim() !== '',
  ) && env.OPENRESPONSES_OTEL_TRACER?.trim().toLowerCase() !== 'sdk';

class OwnTracer implements OwnSpanTracer {
  constructor(
    /** Its provider (a span's export and resource). */
    readonly provider: OwnTracerProvider,
    /** The scope of its spans. */
    readonly scope: SpanScopeName,
  ) {}

  get fixedShapes(): boolean {
    return this.provider.fixedShapes;
  }

  /** The parent's ids in `parentContext`: ours are valid as made; others' are checked (the API's hex checks cost a regex each). */
  private parentIn(parentContext: Context): SpanContext | undefined {
    // The root context holds no span (a request with no caller's trace): not looked up in its map.
    if (parentContext === ROOT_CONTEXT) return undefined;
    const found = trace.getSpan(parentContext)?.spanContext();
    return found !== undefined && (found instanceof SpanIds || isSpanContextValid(found)) ? found : undefined;
  }

  /** What `startSpan` makes of one of the server's spans where the head decided (no sampler asked), in its fixed shape. */
  startFixed(
    shape: SpanShape,
    name: string,
    kind: SpanKind,
    start: Attributes | undefined,
    parentContext: Context,
    extraValue?: AttributeValue,
  ): OwnFixedSpan {
    // A child of one of the server's own spans (its context): its ids as they are, not looked up through the API.
    const parent = parentContext instanceof OwnFixedSpan ? parentContext.spanContext() : this.parentIn(parentContext);
    const ids = new SpanIds(parent, TraceFlags.SAMPLED, parent?.traceState);
    return new OwnFixedSpan(this, shape, name, kind, ids, parent, start ?? EMPTY, extraValue, parentContext);
  }

  startSpan(name: string, options: SpanOptions = {}, parentContext: Context = apiContext.active()): Span {
    const parent = options.root ? undefined : this.parentIn(parentContext);
    const kind = options.kind ?? SpanKind.INTERNAL;
    const attributes = options.attributes ?? EMPTY;
    const { provider } = this;
    // The head decided for the server's traces; the environment's sampler for any other span.
    const spanContext = new SpanIds(parent, TraceFlags.NONE, parent?.traceState);
    const sampled =
      parentContext.getValue(HEAD_SAMPLED) === true ||
      provider.sampler.shouldSample(parentContext, spanContext.traceId, name, kind, attributes, options.links ?? [])
        .decision === RECORD_AND_SAMPLED;
    if (!sampled) return trace.wrapSpanContext(spanContext);
    spanContext.traceFlags = TraceFlags.SAMPLED;
    return new OwnSpan(this, name, kind, spanContext, parent, attributes, options.links, options.startTime);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const fn = rest.at(-1) as F;
    const options = (rest.length > 1 ? rest[0] : undefined) as SpanOptions | undefined;
    const parent = (rest.length > 2 ? rest[1] : undefined) as Context | undefined;
    const parentContext = parent ?? apiContext.active();
    const span = this.startSpan(name, options, parentContext);
    return apiContext.with(trace.setSpan(parentContext, span), () => fn(span)) as ReturnType<F>;
  }
}

/**
 * The tracer provider of the own tracer: its spans under `resource`, sampled by `sampler` (unless the head
 * decided), ended into `ended`.
 */
export class OwnTracerProvider implements TracerProvider {
  private readonly tracers = new Map<string, OwnTracer>();

  constructor(
    /** Where ended spans go (an `OtlpSpanExport`). */
    readonly ended: EndedSpans,
    /** The resource of every span (its attributes read once settled). */
    readonly resource: SpanResource,
    /** Decides spans whose context the head sampler has not marked. */
    readonly sampler: SpanSampler,
    options: {
      /** False: every span through the API path (for comparing both; default true). */
      fixedShapes?: boolean;
    } = {},
  ) {
    this.fixedShapes = options.fixedShapes !== false;
  }

  /** Whether the server's own spans are made in their fixed shape (telemetry/own-spans.ts). */
  readonly fixedShapes: boolean;

  /** The tracer of an instrumentation scope (one per name, version and schema URL). */
  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (tracer === undefined) {
      tracer = new OwnTracer(this, { name, version, schemaUrl: options?.schemaUrl });
      this.tracers.set(key, tracer);
    }
    return tracer;
  }

  /** Sends every span ended so far. */
  forceFlush(): Promise<void> {
    return this.ended.forceFlush();
  }

  /** Sends every span ended so far and stops. */
  shutdown(): Promise<void> {
    return this.ended.shutdown();
  }
}
