// The W3C `traceparent` of an upstream call, written here when the registered propagator is the W3C one (the
// SDK's default: W3C trace context and baggage in its composite): the call then sends the provider's own header
// list with one header appended (`nodeFetch` keeps that list made once), where a copy of the headers through
// the propagator's `inject` made a new list every call (~5k instructions of a traced gateway turn,
// bench/telemetry.bench.ts's gateway note). Any other propagator is asked as before
// (`withTraceHeaders`, ./tracing.ts).
import {
  type Context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { apiRegistry } from './span-scope.js';
import { SpanIds } from './span-ids.js';

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
  if (context.getValue(SUPPRESS_TRACING) === true) return undefined;
  // Our own ids are valid as made, and write their header in one string; others' are checked as the
  // propagator checks them.
  if (spanContext instanceof SpanIds) {
    const own = spanContext.traceparent();
    if (own !== undefined) return own;
  } else if (!isSpanContextValid(spanContext)) return undefined;
  const flags = spanContext.traceFlags || TraceFlags.NONE;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${FLAGS[flags] ?? `0${Number(flags).toString(16)}`}`;
}
