// A fixed span written whole from its kept template (node/own-fixed-span.ts' `encodeWhole`: the last span of its
// head and block with its ids and times patched in) against the general writer (telemetry/otlp-protobuf.ts'
// `writeSpan` with that path held off), byte for byte: many spans of the server's shapes, roots and children,
// names, starting sets and field values of changing lengths, times across seconds and past 2^32 seconds, and
// spans the template cannot take (a status, an event, a field off the block).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import { afterEach, expect, test, vi } from 'vitest';
import { OwnFixedSpan } from '../src/node/own-fixed-span.js';
import { OwnTracerProvider } from '../src/node/own-tracer.js';
import { hrTimeOf } from '../src/node/span-clock.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import { ProtobufBuffer, writeSpan } from '../src/telemetry/otlp-protobuf.js';
import {
  CHILD_SHAPE,
  CLIENT_SHAPE,
  type OwnSpanTracer,
  SERVER_SHAPE,
  type SpanShape,
  TURN_SHAPE,
} from '../src/telemetry/own-spans.js';

const ended: EncodableSpan[] = [];
const provider = new OwnTracerProvider(
  { onEnd: (span) => void ended.push(span), forceFlush: async () => {}, shutdown: async () => {} },
  { attributes: { 'service.name': 'span-template' } },
  { shouldSample: () => ({ decision: 2 }) },
  { fixedShapes: true },
);
const tracer = provider.getTracer('@openresponses/server') as unknown as OwnSpanTracer;
afterEach(() => {
  ended.length = 0;
  vi.restoreAllMocks();
});

const STOP = Object.freeze(['stop']);
const LENGTH = Object.freeze(['length']);

/** A small deterministic random source (the test's spans are the same every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** The span's bytes by the general writer: the span seen through an object without `encodeWhole`. */
function general(span: EncodableSpan): Uint8Array {
  const out = new ProtobufBuffer(64);
  writeSpan(out, 2, Object.create(span, { encodeWhole: { value: undefined } }) as EncodableSpan);
  return out.written().slice();
}

test('a fixed span written from its template gives the general writer’s bytes', () => {
  const taken = vi.spyOn(OwnFixedSpan.prototype, 'encodeWhole');
  const now = vi.spyOn(performance, 'now');
  const next = random(35);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const starts = [Object.freeze({ 'http.request.method': 'POST' }), Object.freeze({ 'db.operation.name': 'put' })];
  const shapes: Array<[SpanShape, string, SpanKind, () => Array<string | number | readonly string[] | undefined>]> = [
    [
      SERVER_SHAPE,
      'POST /v1/responses',
      SpanKind.SERVER,
      () => [pick(['/v1/responses', '/v1/r']), pick([200, 200, 404, 100_000])],
    ],
    [CLIENT_SHAPE, 'POST', SpanKind.CLIENT, () => [pick([200, 200, 200, 503])]],
    [CHILD_SHAPE, pick(['store put', 'store get']), SpanKind.INTERNAL, () => (next() < 0.1 ? ['timeout'] : [])],
    [
      TURN_SHAPE,
      'chat stub-model',
      SpanKind.INTERNAL,
      () => {
        const reasons = next() < 0.9 ? STOP : LENGTH;
        // Ids of one length, now and then a non-ASCII one of that length (more bytes: the template gives way).
        // (short ones through a loop, long ones, concatenated like a response id, through one native call).
        const digits = String(Math.floor(next() * 1e6)).padStart(6, '0');
        const long = next() < 0.5;
        const id =
          next() < 0.05
            ? `resp_é${long ? 'a'.repeat(34) : ''}12345`
            : `resp_${long ? `${digits}${'0123456789abcdef'.repeat(2)}${digits}` : digits}`;
        if (next() < 0.2) return [reasons, 'stub-model'];
        // Token counts whose varints take one byte or more; an output count left unset now and then.
        return [
          reasons,
          'stub-model',
          id,
          next() < 0.8 ? 12 + Math.floor(next() * 100) : pick([127, 128, 100_000]),
          next() < 0.05 ? undefined : pick([300, 301, 5]),
        ];
      },
    ],
  ];
  let written = 0;
  for (let i = 0; i < 2_000; i++) {
    const [shape, name, kind, fields] = pick(shapes);
    // Clock readings across seconds, and a few past 2^32 seconds since the epoch (the slower path of the same bytes).
    const start = next() < 0.05 ? 2 ** 32 * 1000 + next() * 1e9 : 1_000_000 + next() * 3_000_000;
    now.mockReturnValue(start);
    const root = tracer.startFixed(SERVER_SHAPE, 'POST /v1/responses', SpanKind.SERVER, starts[0], ROOT_CONTEXT);
    const span = next() < 0.3 ? root : tracer.startFixed(shape, name, kind, pick(starts), root);
    const values = span === root ? [pick(['/v1/responses', '/v1/r']), 200] : fields();
    span.setFields(...(values as Parameters<OwnFixedSpan['setFields']>));
    if (next() < 0.05) span.setStatus({ code: SpanStatusCode.ERROR });
    if (next() < 0.05) span.addEvent('retry');
    if (next() < 0.03) span.setAttribute('an.other', 1);
    now.mockReturnValue(start + next() * 1500);
    span.end();
    if (span !== root) root.end();
    for (const one of ended.splice(0)) {
      const bulk = new ProtobufBuffer(16);
      writeSpan(bulk, 2, one);
      expect(bulk.written()).toEqual(general(one));
      written++;
    }
  }
  const took = (taken.mock.contexts as EncodableSpan[]).filter((_, call) => taken.mock.results[call]!.value === true);
  const templated = took.length;
  const children = took.filter((span) => span.parentSpanContext !== undefined).length;
  expect(written).toBeGreaterThan(3_000);
  // Many spans take the template (those that varied from their block do not); the rest go the general way.
  expect(templated).toBeGreaterThan(written / 3);
  expect(templated).toBeLessThan(written - 100);
  // Children too (their parent's id patched in), and turns' spans with fields after their block (patched in).
  expect(children).toBeGreaterThan(50);
  expect(took.filter((span) => span.name === 'chat stub-model').length).toBeGreaterThan(50);
});

test('times of clock readings encode as the `[s, ns]` pairs the tracer would make of them', () => {
  const next = random(28);
  const nanosOf = (ms: number) => {
    const [seconds, nanos] = hrTimeOf(ms);
    return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
  };
  for (let i = 0; i < 5_000; i++) {
    // Any second below 2^32 with a fraction up to its last ns, past 2^32 seconds, whole and fractional ms of today.
    const ms = [
      Math.floor(next() * 2 ** 32) * 1000 + 999.9999999 * next(),
      2 ** 32 * 1000 + next() * 1e12,
      Math.round(1_764_590_000_000 + next() * 1e9),
      1_764_590_000_000 + next() * 1e9,
    ][i % 4]!;
    const end = ms + next() * 10;
    const out = new ProtobufBuffer(4);
    out.timesMs(ms, end);
    const bytes = Buffer.from(out.written());
    expect([bytes.readBigUInt64LE(0), bytes[8], bytes.readBigUInt64LE(9)]).toEqual([nanosOf(ms), 0x41, nanosOf(end)]);
  }
});
