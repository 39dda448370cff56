// The W3C `traceparent` of an upstream call, written here when the registered propagator is the W3C one (the
// SDK's default: W3C trace context and baggage in its composite): the call then sends the provider's own header
// list with one header appended (`nodeFetch` keeps that list made once), where a copy of the headers through
// the propagator's `inject` made a new list every call (~5k instructions of a traced gateway turn,
// bench/telemetry.bench.ts's gateway note). Any other propagator is asked as before
// (`withTraceHeaders`, ./tracing.ts).
import { type Context, isSpanContextValid, propagation, type SpanContext, TraceFlags } from '@opentelemetry/api';
import { SpanIds } from './span-ids.js';

/** The SDK's tracing-suppression key (`@opentelemetry/core`'s suppressTracing; context keys are `Symbol.for`). */
const SUPPRESS_TRACING = Symbol.for('OpenTelemetry SDK Context Key SUPPRESS_TRACING');

/** Propagators whose `traceparent` is W3C trace context's: the trace context one, and baggage (which writes none). */
const W3C_PROPAGATORS: ReadonlySet<string> = new Set(['W3CTraceContextPropagator', 'W3CBaggagePropagator']);

let lastPropagator: unknown;
let lastIsW3c = false;

/**
 * Whether the registered propagator is W3C trace context's, alone or in a composite with W3C baggage (known by
 * the SDK's class names; asked again only when another propagator is registered).
 */
export function w3cPropagation(): boolean {
  const registered = (propagation as unknown as { _getGlobalPropagator?(): unknown })._getGlobalPropagator?.();
  if (registered !== lastPropagator) {
    lastPropagator = registered;
    lastIsW3c = isW3c(registered);
  }
  return lastIsW3c;
}

function isW3c(propagator: unknown): boolean {
  if (typeof propagator !== 'object' || propagator === null) return false;
  const name = propagator.constructor?.name;
  if (name === 'W3CTraceContextPropagator') return true;
  if (name !== 'CompositePropagator') return false;
  // The composite's members (a field of the SDK's class, not in its types).
  const members = (propagator as { _propagators?: unknown })._propagators;
  return (
    Array.isArray(members) &&
    members.some((member) => member?.constructor?.name === 'W3CTraceContextPropagator') &&
    members.every((member) => W3C_PROPAGATORS.has(member?.constructor?.name))
  );
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
