// The CLI's tracer of its own behind the OpenTelemetry API's `Tracer` and `Span` (telemetry/tracing.ts and the
// server's span calls are unchanged): ids kept as bytes of a pooled random buffer (hex only when read), one `performance.now()` a start and an
// end, the starting attributes kept as given (the server's frozen attribute sets, whose encoding is then
// reused), each span handed at its end to the OTLP export (./otlp-span-export.ts), which encodes it at once.
// Sampling is the environment's (the SDK's sampler object, as telemetry-sdk.ts builds it). Why, and what it
// saves against the SDK's tracer: bench/telemetry.bench.ts's profile note. Span limits it does not implement
// (OTEL_SPAN_*/OTEL_ATTRIBUTE_* set) keep the SDK's tracer (`ownTracerAllowed`).
import {
  type Attributes,
  type AttributeValue,
  type Context,
  context as apiContext,
  type Exception,
  type HrTime,
  isSpanContextValid,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { HEAD_SAMPLED } from '../telemetry/head-sampling.js';
import type { EncodableSpan, SpanEvent, SpanResource, SpanScopeName } from '../telemetry/otlp-protobuf.js';
import { SpanIds } from '../telemetry/span-ids.js';

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

/** What receives ended spans (an `OtlpSpanExport`). */
export interface EndedSpans {
  /** Takes a span that just ended (sampled: the tracer makes no other). */
  onEnd(span: EncodableSpan): void;
  /** Sends what it holds. */
  forceFlush(): Promise<void>;
  /** Sends what it holds and stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment sets nothing the own tracer leaves out (span limits, which the SDK's applies). */
export const ownTracerAllowed = (env: Env): boolean =>
  !Object.keys(env).some(
    (name) => /^OTEL_(SPAN|EVENT|LINK|ATTRIBUTE)_\w*LIMIT$/.test(name) && (env[name] ?? '').trim() !== '',
  ) && env.OPENRESPONSES_OTEL_TRACER?.trim().toLowerCase() !== 'sdk';

// `performance` imported, not the global: the global is a lazy getter that Node runs on every read, and the
// time origin is read once (a getter too, and fixed for the process).
const timeOrigin = performance.timeOrigin;
/**
 * Wall-clock ms of a `performance.now()` reading: the time origin corrected by how far `Date.now()` has moved
 * from it (the monotonic clock drifts from the wall clock over a long uptime), measured again every 10 s.
 */
let clockOffset = 0;
let clockCheckedAt = Number.NEGATIVE_INFINITY;
function wallClockMs(now: number): number {
  if (now - clockCheckedAt > 10_000) {
    clockOffset = Date.now() - (timeOrigin + now);
    clockCheckedAt = now;
  }
  return timeOrigin + now + clockOffset;
}
const hrTimeOf = (ms: number): HrTime => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6))];
};
/** A `TimeInput` (epoch ms, a `performance.now()` reading, a Date, or `[s, ns]`) as `[s, ns]`. */
function timeOf(input: TimeInput): HrTime {
  if (Array.isArray(input)) return input as HrTime;
  if (input instanceof Date) return hrTimeOf(input.getTime());
  const ms = input as number;
  return hrTimeOf(ms <= performance.now() ? wallClockMs(ms) : ms);
}

const EMPTY: Attributes = Object.freeze({});
const COUNT_LIMIT = 128;
// A span without links, events or a status set shares these (most spans): replaced, never written to.
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];
const NO_EVENTS: SpanEvent[] = Object.freeze([]) as unknown as SpanEvent[];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

const isPrimitive = (value: unknown): boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
/** The SDK's rule: a primitive, or an array of one primitive type (nulls allowed). */
function isAttributeValue(value: unknown): value is AttributeValue {
  if (!Array.isArray(value)) return isPrimitive(value);
  let type: string | undefined;
  for (const item of value) {
    if (item == null) continue;
    if (type === undefined) {
      if (!isPrimitive(item)) return false;
      type = typeof item;
    } else if (typeof item !== type) return false;
  }
  return true;
}

/** A sampled span of the own tracer: recorded until `end`, then handed to the export and forgotten. */
class OwnSpan implements Span, EncodableSpan {
  links: Link[];
  events: SpanEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  /**
   * Attributes set after the start, in the order first set, keys and values apart (made at the first one): the
   * encoder writes them without an object to walk or a check a key.
   */
  addedKeys: string[] | undefined;
  addedValues: AttributeValue[] | undefined;
  /** Whether an attribute set after the start sets a starting one again (it keeps its place among them). */
  restatesInitial = false;
  /** Wall-clock ms of the start, of the end (the encoder writes these when no time was given). */
  readonly startMs: number;
  endMs = 0;
  private readonly startGiven: HrTime | undefined;
  private endGiven: HrTime | undefined;
  private ended = false;
  /** Distinct attributes, counted from the first `setAttribute` (the limit is the SDK's default, 128). */
  private count = 0;

  constructor(
    private readonly ended_: EndedSpans,
    public name: string,
    readonly kind: SpanKind,
    private readonly context: SpanContext,
    readonly parentSpanContext: SpanContext | undefined,
    /** The starting attributes, as given (never written to). */
    readonly initial: Attributes,
    links: Link[] | undefined,
    startTime: TimeInput | undefined,
    readonly resource: SpanResource,
    readonly instrumentationScope: SpanScopeName,
  ) {
    this.links = links ? links.slice(0, COUNT_LIMIT) : NO_LINKS;
    this.startMs = wallClockMs(performance.now());
    this.startGiven = startTime === undefined ? undefined : timeOf(startTime);
  }

  get startTime(): HrTime {
    return this.startGiven ?? hrTimeOf(this.startMs);
  }

  get endTime(): HrTime {
    return this.endGiven ?? hrTimeOf(this.endMs);
  }

  /** Whether both times are the clock's (`startMs`, `endMs`), none given by the caller. */
  get clockTimes(): boolean {
    return this.startGiven === undefined && this.endGiven === undefined;
  }

  /** Every attribute, the starting ones first (a copy: the encoder reads `initial` and the added ones apart). */
  get attributes(): Attributes {
    const keys = this.addedKeys;
    if (keys === undefined) return this.initial;
    const all: Attributes = { ...this.initial };
    const values = this.addedValues!;
    // Defined, not assigned: a key such as `__proto__` is an attribute like any other.
    for (let i = 0; i < keys.length; i++)
      Object.defineProperty(all, keys[i]!, { value: values[i], enumerable: true, writable: true, configurable: true });
    return all;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  setAttribute(key: string, value: SpanAttributes[string]): this {
    if (value == null || this.ended || key.length === 0 || !isAttributeValue(value)) return this;
    let keys = this.addedKeys;
    if (keys === undefined) {
      keys = this.addedKeys = [];
      this.addedValues = [];
      this.count = Object.keys(this.initial).length;
    }
    const index = keys.indexOf(key);
    if (index >= 0) {
      this.addedValues![index] = value;
      return this;
    }
    if (Object.hasOwn(this.initial, key)) this.restatesInitial = true;
    else if (this.count >= COUNT_LIMIT) {
      this.droppedAttributesCount++;
      return this;
    } else this.count++;
    keys.push(key);
    this.addedValues!.push(value);
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const key in attributes) if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    let attributes: Attributes | undefined;
    if (attributesOrTime instanceof Date || typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime))
      time ??= attributesOrTime as TimeInput;
    else if (attributesOrTime) {
      attributes = {};
      for (const key in attributesOrTime)
        if (Object.hasOwn(attributesOrTime, key) && isAttributeValue(attributesOrTime[key]))
          attributes[key] = attributesOrTime[key];
    }
    if (this.events === NO_EVENTS) this.events = [];
    if (this.events.length >= COUNT_LIMIT) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    this.events.push({
      name,
      attributes: attributes ?? {},
      time: time === undefined ? hrTimeOf(wallClockMs(performance.now())) : timeOf(time),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.links.length >= COUNT_LIMIT) this.droppedLinksCount++;
    else {
      if (this.links === NO_LINKS) this.links = [];
      this.links.push(link);
    }
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    // A span started at a given time ends by the wall clock (a `performance.now()` reading is not comparable).
    this.endMs = this.startGiven === undefined ? wallClockMs(performance.now()) : Date.now();
    if (endTime !== undefined) this.endGiven = timeOf(endTime);
    this.ended = true;
    this.ended_.onEnd(this);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** As the SDK records one: an `exception` event with its type (code, else name), message and stack. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }
}

class OwnTracer implements Tracer {
  constructor(
    private readonly provider: OwnTracerProvider,
    private readonly scope: SpanScopeName,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, parentContext: Context = apiContext.active()): Span {
    const parentSpan = options.root ? undefined : trace.getSpan(parentContext);
    const found = parentSpan?.spanContext();
    // Our own spans' ids are valid as made; others' are checked (the API's hex checks cost a regex each).
    const parent = found !== undefined && (found instanceof SpanIds || isSpanContextValid(found)) ? found : undefined;
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
    return new OwnSpan(
      provider.ended,
      name,
      kind,
      spanContext,
      parent,
      attributes,
      options.links,
      options.startTime,
      provider.resource,
      this.scope,
    );
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
  ) {}

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
