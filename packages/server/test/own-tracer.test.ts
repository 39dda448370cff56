// The CLI's own tracer's ids (node/own-tracer.ts, kept as bytes by telemetry/span-ids.ts): W3C trace
// context's format (lower-case hex, 32 and 16 digits, never all zeros, even from a random source that gives
// zeros), one trace id for a trace's spans, the parent's span id on its children, a caller's trace continued,
// the same hex on every read, and the encoded ids equal to their hex (decoded back from the OTLP bytes).
import { context, ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from '@opentelemetry/api';
import { afterEach, expect, test, vi } from 'vitest';
import { OwnTracerProvider } from '../src/node/own-tracer.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import { SpanBatch } from '../src/telemetry/span-batch.js';
import { traceparentOf } from '../src/telemetry/traceparent.js';

const ended: EncodableSpan[] = [];
const provider = new OwnTracerProvider(
  { onEnd: (span) => void ended.push(span), forceFlush: async () => {}, shutdown: async () => {} },
  { attributes: { 'service.name': 'ids' } },
  // Every span sampled (the SDK's AlwaysOnSampler's decision, RECORD_AND_SAMPLED).
  { shouldSample: () => ({ decision: 2 }) },
);
const tracer = provider.getTracer('@openresponses/server');
afterEach(() => {
  ended.length = 0;
  vi.restoreAllMocks();
});

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

test('ids are W3C hex and never all zeros, even when the random source gives a pool of zeros', () => {
  const real = crypto.getRandomValues.bind(crypto);
  let calls = 0;
  vi.spyOn(crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
    calls++;
    // The first pool is all zeros: every id drawn from it would be refused.
    return calls === 1 ? array : real(array as never);
  });
  const contexts: SpanContext[] = [];
  // More spans than one 16 KiB pool holds (24 bytes a root span): at least one pool is drawn after the zeros.
  for (let i = 0; i < 1500; i++) contexts.push(tracer.startSpan(`root ${i}`, {}, ROOT_CONTEXT).spanContext());
  expect(calls).toBeGreaterThanOrEqual(2);
  for (const { traceId, spanId } of contexts) {
    expect(traceId).toMatch(TRACE_ID);
    expect(spanId).toMatch(SPAN_ID);
    expect(traceId).not.toBe('0'.repeat(32));
    expect(spanId).not.toBe('0'.repeat(16));
  }
  expect(new Set(contexts.map(({ traceId }) => traceId)).size).toBe(contexts.length);
  expect(new Set(contexts.map(({ spanId }) => spanId)).size).toBe(contexts.length);
});

test("a trace's spans share its trace id; a child names its parent; hex reads are stable", () => {
  const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
  const child = tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root));
  const grandchild = tracer.startSpan('grandchild', {}, trace.setSpan(ROOT_CONTEXT, child));
  for (const span of [grandchild, child, root]) span.end();
  const [g, c, r] = ended as [EncodableSpan, EncodableSpan, EncodableSpan];
  expect(c.spanContext().traceId).toBe(r.spanContext().traceId);
  expect(g.spanContext().traceId).toBe(r.spanContext().traceId);
  expect(c.parentSpanContext?.spanId).toBe(r.spanContext().spanId);
  expect(g.parentSpanContext?.spanId).toBe(c.spanContext().spanId);
  expect(r.parentSpanContext).toBeUndefined();
  expect(new Set([r, c, g].map((span) => span.spanContext().spanId)).size).toBe(3);
  expect(r.spanContext().traceFlags).toBe(TraceFlags.SAMPLED);
  // The same strings each read (made once).
  expect(root.spanContext().traceId).toBe(root.spanContext().traceId);
  expect(root.spanContext().spanId).toBe(root.spanContext().spanId);
});

test("a caller's trace (hex ids) is continued, and every id is encoded as the bytes of its hex", () => {
  const caller: SpanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  };
  const parent = trace.setSpanContext(context.active(), caller);
  const server = tracer.startSpan('server', {}, parent);
  const inner = tracer.startSpan('inner', {}, trace.setSpan(parent, server));
  inner.end();
  server.end();
  const fresh = tracer.startSpan('fresh', {}, ROOT_CONTEXT);
  fresh.end();
  expect(server.spanContext().traceId).toBe(caller.traceId);
  expect(inner.spanContext().traceId).toBe(caller.traceId);
  expect((ended[1] as EncodableSpan).parentSpanContext?.spanId).toBe(caller.spanId);
  // Each span's ids as encoded: Span.trace_id (field 1), span_id (2), parent_span_id (4), in order.
  for (const span of ended) {
    const batch = new SpanBatch();
    batch.add(span);
    const hex = Buffer.from(batch.request()).toString('hex');
    const { traceId, spanId } = span.spanContext();
    const parentId = span.parentSpanContext?.spanId;
    // tag 1 (0x0a) length 16, tag 2 (0x12) length 8, tag 4 (0x22) length 8.
    expect(hex).toContain(`0a10${traceId}1208${spanId}${parentId ? `2208${parentId}` : '2a'}`);
  }
});

test('attributes set after the start: 128 at most with the starting ones, a key set again keeps its place', () => {
  const span = tracer.startSpan('limits', { attributes: Object.freeze({ a: 1, b: 'two' }) }, ROOT_CONTEXT);
  for (let i = 0; i < 130; i++) span.setAttribute(`k${i}`, i);
  span.setAttribute('k0', 'again');
  span.setAttribute('a', 'restated');
  span.setAttribute('__proto__', 'a key like any other');
  span.end();
  const [ended0] = ended as [EncodableSpan];
  expect(ended0.droppedAttributesCount).toBe(5);
  const attributes = ended0.attributes;
  expect(Object.keys(attributes)).toHaveLength(128);
  expect(Object.keys(attributes).slice(0, 4)).toEqual(['a', 'b', 'k0', 'k1']);
  expect(attributes.a).toBe('restated');
  expect(attributes.k0).toBe('again');
  expect(attributes.k125).toBe(125);
  expect(Object.hasOwn(attributes, 'k126')).toBe(false);
  // Encoded as `attributes` reads (a starting one set again stays in its place).
  const batch = new SpanBatch();
  batch.add(ended0);
  const text = Buffer.from(batch.request()).toString('latin1');
  expect(text.indexOf('restated')).toBeLessThan(text.indexOf('two'));
  expect(text).toContain('again');
  expect(text).not.toContain('a key like any other');
});

test("an upstream call's traceparent is W3C's 00-{trace id}-{span id}-{flags} of the span, sampled or not", () => {
  const dropping = new OwnTracerProvider(
    { onEnd: () => {}, forceFlush: async () => {}, shutdown: async () => {} },
    { attributes: {} },
    { shouldSample: () => ({ decision: 0 }) },
  ).getTracer('drops');
  const caller = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
  const root = tracer.startSpan('root', {}, ROOT_CONTEXT);
  const spans = [
    root,
    tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root)),
    tracer.startSpan('continued', {}, caller),
    dropping.startSpan('dropped', {}, ROOT_CONTEXT),
  ];
  // More than one pool's worth of ids, so that some come from a pool drawn after the first.
  for (let i = 0; i < 1000; i++) spans.push(tracer.startSpan(`root ${i}`, {}, ROOT_CONTEXT));
  for (const span of spans) {
    const { traceId, spanId, traceFlags } = span.spanContext();
    expect(traceparentOf(span.spanContext(), ROOT_CONTEXT)).toBe(`00-${traceId}-${spanId}-0${traceFlags}`);
  }
  expect(spans[2]!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  expect(spans[3]!.spanContext().traceFlags).toBe(TraceFlags.NONE);
});
