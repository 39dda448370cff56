// The traced upstream call's headers (withTraceHeaders): a sampled trace's traceparent goes on a copy of the
// provider's headers (theirs untouched); a trace with nothing to propagate (a new trace the head sampler
// dropped) gets the provider's headers object itself, so nodeFetch's header list made for that object is used
// again instead of being rebuilt for a copy on every sampled-out gateway turn.
import {
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  type TextMapPropagator,
  trace,
} from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { withTraceHeaders } from '../src/telemetry/tracing.js';

const scopeOf = (spanContext: SpanContext) => {
  const span = trace.wrapSpanContext(spanContext);
  return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
};

/** W3C trace-context's inject, as the SDK's propagator writes it for a valid span context (and nothing else). */
const traceparentOnly: TextMapPropagator = {
  inject(context, carrier, setter) {
    const found = trace.getSpanContext(context);
    if (found && isSpanContextValid(found))
      setter.set(carrier, 'traceparent', `00-${found.traceId}-${found.spanId}-0${found.traceFlags & 1}`);
  },
  extract: (context) => context,
  fields: () => ['traceparent'],
};

beforeAll(() => {
  propagation.setGlobalPropagator(traceparentOnly);
});
afterAll(() => propagation.disable());

test('a sampled-out new trace: the same headers object, no traceparent', () => {
  const headers = { authorization: 'Bearer x', 'content-type': 'application/json' };
  const sent = withTraceHeaders(scopeOf(INVALID_SPAN_CONTEXT), headers);
  expect(sent).toBe(headers);
  expect(sent).not.toHaveProperty('traceparent');
});

test("a trace to carry on: a copy with its traceparent, the provider's headers untouched", () => {
  const headers = { authorization: 'Bearer x' };
  const traceId = '6cf92f3577b34da6a3ce929d0e0e4738';
  const spanId = '20f067aa0ba902b9';
  const sent = withTraceHeaders(scopeOf({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }), headers);
  expect(sent).not.toBe(headers);
  expect(sent).toEqual({ authorization: 'Bearer x', traceparent: `00-${traceId}-${spanId}-01` });
  expect(headers).toEqual({ authorization: 'Bearer x' });
});
