// The W3C `traceparent` of an upstream call, written here when the registered propagator is the W3C one (the
// SDK's default: W3C trace context and baggage in its composite): the call then sends the provider's own header
// list with one header appended (`nodeFetch` keeps that list made once), where a copy of the headers through
// the propagator's `inject` made a new list every call (~5k instructions of a traced gateway turn,
// bench/telemetry.bench.ts's gateway note). Any other propagator is asked as before
// (`withTraceHeaders`, ./tracing.ts). The caller's `traceparent` is read here too under the W3C propagators
// (`callerContext`).
import {
  type Context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  type TextMapGetter,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { apiRegistry, withSpan } from './span-scope.js';
import { HEX_HIGH, HEX_LOW, SpanIds } from './span-ids.js';

/** The SDK's tracing-suppression key (`@opentelemetry/core`'s suppressTracing; context keys are `Symbol.for`). */
const SUPPRESS_TRACING = Symbol.for('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

let lastPropagator: unknown;
let lastIsW3c = false;

/** A span context the probe below injects, once sampled and once not (ids of the W3C recommendation's example). */
const PROBES: readonly SpanContext[] = [TraceFlags.SAMPLED, TraceFlags.NONE].map((traceFlags) => ({
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  traceFlags,
}));

/**
 * Whether the registered propagator writes `traceparent` as W3C trace context's does (the SDK's default: that
 * one alone or in a composite; asked again only when another propagator is registered). Known by what it
 * writes for two probe contexts, not by class names, which a bundler may rename; only `traceparent` is sent
 * upstream either way (`withTraceHeaders`, ./tracing.ts).
 */
export function w3cPropagation(): boolean {
  const registered = apiRegistry()?.propagation;
  if (registered !== lastPropagator) {
    lastPropagator = registered;
    lastIsW3c = registered !== undefined && PROBES.every(writesW3cTraceparent);
  }
  return lastIsW3c;
}

function writesW3cTraceparent(probe: SpanContext): boolean {
  const carrier: Record<string, string> = {};
  try {
    propagation.inject(trace.setSpanContext(ROOT_CONTEXT, probe), carrier);
  } catch {
    return false;
  }
  return carrier.traceparent === traceparentOf(probe, ROOT_CONTEXT);
}

const FLAGS = ['00', '01'];

/**
 * The `traceparent` W3C trace context's propagator writes for `spanContext` in `context` (its rules: nothing
 * for an invalid context or where tracing is suppressed), or undefined.
 */
export function traceparentOf(spanContext: SpanContext, context: Context): string | undefined {
  // A new trace the head sampler dropped carries the API's invalid context itself: nothing to write, known
  // without `isSpanContextValid`'s two regular expressions (~0.9k instructions a sampled-out gateway turn).
  if (spanContext === INVALID_SPAN_CONTEXT) return undefined;
  if (context.getValue(SUPPRESS_TRACING) === true) return undefined;
  // Our own ids are valid as made, and write their header from their bytes; others' are checked as the
  // propagator checks them.
  const flags = spanContext.traceFlags || TraceFlags.NONE;
  if (spanContext instanceof SpanIds) {
    if (spanContext.traceBytes !== undefined && (flags === 0 || flags === 1)) return ownTraceparent(spanContext, flags);
  } else if (!isSpanContextValid(spanContext)) return undefined;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${FLAGS[flags] ?? `0${Number(flags).toString(16)}`}`;
}

/**
 * `00-{trace id}-{span id}-0{flags}` of a trace started here (its ids' bytes in the pool), for flags 0 or 1: each
 * byte read into a local and the 55 characters made by one `String.fromCharCode` call, no loop, buffer or
 * decoder (callgrind, a traced gateway turn: `traceparentOf` 1.8k instructions, 2.4k with the 55 codes written
 * into bytes and decoded by `TextDecoder`).
 */
function ownTraceparent(ids: SpanIds, flags: 0 | 1): string {
  const trace = ids.traceBytes!;
  const traceAt = ids.traceAt;
  const t0 = trace[traceAt]!;
  const t1 = trace[traceAt + 1]!;
  const t2 = trace[traceAt + 2]!;
  const t3 = trace[traceAt + 3]!;
  const t4 = trace[traceAt + 4]!;
  const t5 = trace[traceAt + 5]!;
  const t6 = trace[traceAt + 6]!;
  const t7 = trace[traceAt + 7]!;
  const t8 = trace[traceAt + 8]!;
  const t9 = trace[traceAt + 9]!;
  const t10 = trace[traceAt + 10]!;
  const t11 = trace[traceAt + 11]!;
  const t12 = trace[traceAt + 12]!;
  const t13 = trace[traceAt + 13]!;
  const t14 = trace[traceAt + 14]!;
  const t15 = trace[traceAt + 15]!;
  const span = ids.spanBytes;
  const spanAt = ids.spanAt;
  const s0 = span[spanAt]!;
  const s1 = span[spanAt + 1]!;
  const s2 = span[spanAt + 2]!;
  const s3 = span[spanAt + 3]!;
  const s4 = span[spanAt + 4]!;
  const s5 = span[spanAt + 5]!;
  const s6 = span[spanAt + 6]!;
  const s7 = span[spanAt + 7]!;
  // biome-ignore format: one pair of digits a byte
  return String.fromCharCode(
    0x30, 0x30, 0x2d,
    HEX_HIGH[t0]!, HEX_LOW[t0]!, HEX_HIGH[t1]!, HEX_LOW[t1]!, HEX_HIGH[t2]!, HEX_LOW[t2]!, HEX_HIGH[t3]!, HEX_LOW[t3]!, HEX_HIGH[t4]!, HEX_LOW[t4]!, HEX_HIGH[t5]!, HEX_LOW[t5]!, HEX_HIGH[t6]!, HEX_LOW[t6]!, HEX_HIGH[t7]!, HEX_LOW[t7]!, HEX_HIGH[t8]!, HEX_LOW[t8]!, HEX_HIGH[t9]!, HEX_LOW[t9]!, HEX_HIGH[t10]!, HEX_LOW[t10]!, HEX_HIGH[t11]!, HEX_LOW[t11]!, HEX_HIGH[t12]!, HEX_LOW[t12]!, HEX_HIGH[t13]!, HEX_LOW[t13]!, HEX_HIGH[t14]!, HEX_LOW[t14]!, HEX_HIGH[t15]!, HEX_LOW[t15]!,
    0x2d,
    HEX_HIGH[s0]!, HEX_LOW[s0]!, HEX_HIGH[s1]!, HEX_LOW[s1]!, HEX_HIGH[s2]!, HEX_LOW[s2]!, HEX_HIGH[s3]!, HEX_LOW[s3]!, HEX_HIGH[s4]!, HEX_LOW[s4]!, HEX_HIGH[s5]!, HEX_LOW[s5]!, HEX_HIGH[s6]!, HEX_LOW[s6]!, HEX_HIGH[s7]!, HEX_LOW[s7]!,
    0x2d, 0x30, 0x30 + flags,
  );
}

/** The headers W3C trace context's and baggage's propagators read (their `fields()`). */
const W3C_FIELDS = new Set(['traceparent', 'tracestate', 'baggage']);

let lastExtractor: unknown;
let lastExtractsW3c = false;

/**
 * Whether the registered propagator is W3C trace context's (the SDK's default: in a composite with baggage's):
 * it writes `traceparent` as that one does (`w3cPropagation`), reads the probes' `traceparent` as it does, and
 * names no header but the W3C ones among its fields. Then `callerContext` reads a request's `traceparent`
 * itself. Asked again only when another propagator is registered.
 */
function w3cExtraction(): boolean {
  const registered = apiRegistry()?.propagation;
  if (registered !== lastExtractor) {
    lastExtractor = registered;
    lastExtractsW3c =
      w3cPropagation() &&
      propagation.fields().every((field) => W3C_FIELDS.has(field)) &&
      PROBES.every(readsW3cTraceparent) &&
      readsW3cTraceparent(undefined);
  }
  return lastExtractsW3c;
}

/** Whether the propagator reads the probe's `traceparent` (or, for none, one of version 00 with a part more) as W3C's does. */
function readsW3cTraceparent(probe: SpanContext | undefined): boolean {
  const traceparent =
    probe === undefined ? `${traceparentOf(PROBES[0]!, ROOT_CONTEXT)}-more` : traceparentOf(probe, ROOT_CONTEXT);
  try {
    const read = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
    if (probe === undefined) return read === undefined;
    return (
      read?.traceId === probe.traceId &&
      read.spanId === probe.spanId &&
      read.traceFlags === probe.traceFlags &&
      read.isRemote === true
    );
  } catch {
    return false;
  }
}

const headerGetter: TextMapGetter<(name: string) => string | null> = {
  get: (header, key) => header(key) ?? undefined,
  keys: () => [],
};

/**
 * W3C trace context's `traceparent` as its propagator matches it: `@opentelemetry/core`'s `parseTraceParent`,
 * copied because that package comes only with the SDK, an optional peer of this one.
 */
const TRACEPARENT = /^\s?((?!ff)[\da-f]{2})-((?![0]{32})[\da-f]{32})-((?![0]{16})[\da-f]{16})-([\da-f]{2})(-.*)?\s?$/;

/**
 * `active` with the caller's trace context from its request headers, as the registered propagator extracts
 * it. Under the W3C propagators a request with no `tracestate` or `baggage` is read here: only its
 * `traceparent` then counts, parsed by their rules (a version `00` header with more parts is not one), without
 * the API's lookups and the composite's calls; anything else is the propagator's to read.
 */
export function callerContext(active: Context, header: (name: string) => string | null): Context {
  if (!w3cExtraction()) return propagation.extract(active, header, headerGetter);
  const traceparent = header('traceparent');
  if (header('baggage') || (traceparent && header('tracestate')))
    return propagation.extract(active, header, headerGetter);
  if (!traceparent) return active;
  const match = TRACEPARENT.exec(traceparent);
  if (match === null || (match[1] === '00' && match[5])) return active;
  const caller: SpanContext = {
    traceId: match[2]!,
    spanId: match[3]!,
    traceFlags: Number.parseInt(match[4]!, 16),
    isRemote: true,
  };
  return withSpan(active, trace.wrapSpanContext(caller));
}
