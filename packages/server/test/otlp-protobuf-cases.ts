// Run by test/otlp-protobuf.test.ts in a child process (Node's own loader: the test runner cannot load the
// SDK's ESM builds): ended SDK spans of every shape the encoder knows, serialized by the SDK's
// ProtobufTraceSerializer and by our SpanBatch; prints one JSON line per case with both as hex. Then the same
// calls on the CLI's own tracer (node/own-tracer.ts): its spans through both serializers, and what both
// tracers recorded (ids and times aside) side by side.
import type * as Api from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import type * as Transformer from '@opentelemetry/otlp-transformer';
import type * as Resources from '@opentelemetry/resources';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import { createRequire } from 'node:module';
import { OwnTracerProvider } from '../src/node/own-tracer.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import { SpanBatch } from '../src/telemetry/span-batch.js';

const require = createRequire(import.meta.url);
const { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } = require('@opentelemetry/api') as typeof Api;
const { TraceState } = require('@opentelemetry/core') as typeof Core;
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as typeof Transformer;
const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof Resources;
const { AlwaysOnSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
  require('@opentelemetry/sdk-trace-base') as typeof TraceBase;
type ReadableSpan = TraceBase.ReadableSpan;
type BasicTracerProvider = TraceBase.BasicTracerProvider;

/** Ended SDK spans of `resource`, made by `make` with the provider's tracers. */
function spansOf(
  resource: ReturnType<typeof resourceFromAttributes>,
  make: (provider: BasicTracerProvider) => void,
): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  make(provider);
  return exporter.getFinishedSpans();
}

const ours = (spans: readonly EncodableSpan[]): Uint8Array => {
  const batch = new SpanBatch();
  for (const span of spans) batch.add(span);
  return batch.request();
};
const theirs = (spans: readonly EncodableSpan[]): Uint8Array =>
  ProtobufTraceSerializer.serializeRequest(spans as ReadableSpan[])!;

{
  const resource = resourceFromAttributes({
    'service.name': 'openresponses-server',
    'process.pid': 4242,
    'host.name': 'höst',
  });
  const everyShape = (provider: Api.TracerProvider) => {
    const tracer = provider.getTracer('@openresponses/server', '1.2.3');
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=opaque,other=1'),
    });
    const server = tracer.startSpan(
      'POST',
      { kind: SpanKind.SERVER, attributes: { 'url.path': '/v1/responses' } },
      remote,
    );
    const inServer = trace.setSpan(remote, server);
    const turn = tracer.startSpan(
      'chat openresponses-deterministic',
      {
        attributes: {
          'gen_ai.request.stream': false,
          'gen_ai.usage.input_tokens': 19,
          'big.int': 2 ** 40 + 3,
          'negative.int': -7,
          ratio: 0.25,
          'not.finite': Number.POSITIVE_INFINITY,
          'list.strings': ['stop', 'länge'],
          'list.numbers': [1, 2.5, -3],
          'list.booleans': [true, false],
          'text.long': 'x'.repeat(300),
          'text.unicode': 'naïve 😀',
        },
        links: [
          {
            context: { traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.NONE },
            attributes: { 'link.reason': 'continues' },
          },
          {
            context: {
              traceId: 'a'.repeat(32),
              spanId: 'b'.repeat(16),
              traceFlags: TraceFlags.SAMPLED,
              isRemote: true,
            },
          },
        ],
      },
      inServer,
    );
    turn.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': 'Hello', count: 2 });
    turn.addEvent('no attributes');
    const inTurn = trace.setSpan(inServer, turn);
    const client = tracer.startSpan('POST', { kind: SpanKind.CLIENT, attributes: { 'server.port': 443 } }, inTurn);
    client.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream answered 500' });
    client.end();
    for (const kind of [SpanKind.PRODUCER, SpanKind.CONSUMER]) tracer.startSpan(`kind ${kind}`, { kind }, inTurn).end();
    const store = provider
      .getTracer('other-scope')
      .startSpan('store put', { attributes: { 'db.operation.name': 'put' } }, inTurn);
    // Refused by both (the SDK's span would keep it from the starting attributes; the own tracer keeps those as given).
    store.setAttribute('bytes', new Uint8Array([0, 1, 255]) as never);
    store.setStatus({ code: SpanStatusCode.OK });
    store.end();
    turn.setAttribute('gen_ai.response.finish_reasons', ['stop']);
    turn.setStatus({ code: SpanStatusCode.ERROR });
    turn.end();
    server.updateName('POST /v1/responses');
    server.setAttribute('http.response.status_code', 200);
    server.end();
    // A new trace, no parent, with an attribute set long enough for a span over 16 KiB (three-byte length).
    const root = tracer.startSpan('root', { attributes: { 'text.huge': 'y'.repeat(20_000) } });
    root.end();
    // The server's calls: a frozen starting set, one of its attributes set again, failures recorded, values the
    // API refuses, a status after OK, calls after the end.
    const set = Object.freeze({ 'http.request.method': 'POST', 'url.path': '/v1/responses' });
    for (let i = 0; i < 2; i++) {
      const span = tracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: set });
      span.setAttribute('http.response.status_code', 500);
      if (i === 1) span.setAttribute('url.path', '/v1/responses/{id}');
      span.recordException({ name: 'upstream_unavailable', message: 'model_error: upstream_unavailable' });
      span.recordException({ code: 'ECONNREFUSED', name: 'Error' } as never);
      span.recordException('plain words');
      span.setAttribute('mixed', [1, 'two'] as never);
      span.setAttribute('object', { a: 1 } as never);
      span.setAttribute('nothing', undefined as never);
      span.setAttributes({ 'with.null': [null, 'x'] as never, flag: true });
      span.setStatus({ code: SpanStatusCode.OK });
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'too late' });
      span.end();
      span.setAttribute('after.end', 1);
      span.updateName('after end');
      span.end();
    }
  };
  const spans = spansOf(resource, everyShape);
  // The own tracer, the same calls: every span sampled, as the SDK's default sampler does here.
  const ownSpans: EncodableSpan[] = [];
  const own = new OwnTracerProvider(
    { onEnd: (span) => void ownSpans.push(span), forceFlush: async () => {}, shutdown: async () => {} },
    resource,
    new AlwaysOnSampler(),
  );
  everyShape(own);
  // A gateway turn's four spans as the server makes them, three turns of a new trace each: frozen starting
  // sets, attributes set at the end with the values of the turn before (their encoding kept and reused) and
  // with new ones (an id, a count), frozen lists, and values the one-pass writer hands on (non-ASCII, long, negative, past
  // 2^31, a list).
  const serverSet = Object.freeze({ 'http.request.method': 'POST', 'url.path': '/v1/responses' });
  const turnSet = Object.freeze({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.stream': false });
  const clientSet = Object.freeze({ 'http.request.method': 'POST', 'server.port': 443, 'url.full': 'https://x/v1' });
  const storeSet = Object.freeze({ 'db.operation.name': 'put', 'openresponses.store': 'MemoryResponseStore' });
  // Frozen lists, as the server's finish reasons are made once: written again from their kept bytes, and another
  // after those were kept.
  const stopList = Object.freeze(['stop']) as string[];
  const lengthList = Object.freeze(['length', 'stop']) as string[];
  const ownTracer = own.getTracer('@openresponses/server');
  for (let i = 0; i < 3; i++) {
    const server = ownTracer.startSpan('POST', { kind: SpanKind.SERVER, attributes: serverSet }, ROOT_CONTEXT);
    const inServer = trace.setSpan(ROOT_CONTEXT, server);
    const turn = ownTracer.startSpan('chat stub-model', { attributes: turnSet }, inServer);
    const inTurn = trace.setSpan(inServer, turn);
    const client = ownTracer.startSpan('POST', { kind: SpanKind.CLIENT, attributes: clientSet }, inTurn);
    client.setAttribute('http.response.status_code', i === 1 ? 429 : 200);
    client.end();
    ownTracer.startSpan('store put', { attributes: storeSet }, inTurn).end();
    turn.setAttribute('gen_ai.response.model', i === 2 ? 'modèle' : 'stub-model-2026');
    turn.setAttribute('gen_ai.response.id', `chatcmpl-${i}`);
    turn.setAttribute('gen_ai.usage.input_tokens', 12);
    turn.setAttribute('gen_ai.usage.output_tokens', [34, 2 ** 31, -5][i]!);
    turn.setAttribute('gen_ai.response.finish_reasons', ['stop']);
    turn.setAttribute('openresponses.kept_list', stopList);
    turn.setAttribute('openresponses.changed_list', i === 2 ? lengthList : stopList);
    turn.setAttribute('openresponses.long', 'z'.repeat(90 + 5 * i));
    turn.setAttribute('openresponses.flag', i !== 1);
    turn.end();
    server.updateName('POST /v1/responses');
    server.setAttribute('http.route', '/v1/responses');
    server.setAttribute('http.response.status_code', 200);
    server.end();
  }
  // One name and kind whose spans' lengths take 1, 2, 1, 3 and 2 bytes in turn: each span's length is given the
  // size of the one before it (kept with the head), and the span moves when its own differs.
  for (const size of [10, 200, 10, 20_000, 200])
    ownTracer.startSpan('sized', { attributes: { text: 'w'.repeat(size) } }, ROOT_CONTEXT).end();
  // Strings of 32 characters and more set after the start (written by one native call: Node's Buffer writer, else
  // `TextEncoder.encodeInto`): ASCII, one made by concatenation (as a response id is), and ones not ASCII at their
  // end or their start.
  const a40 = 'a'.repeat(40);
  for (const text of [a40, `resp_${'0123456789abcdef'.repeat(2)}`, `${a40}é`, `😀${a40}`])
    ownTracer.startSpan('long strings', {}, ROOT_CONTEXT).setAttribute('text', text).end();
  // One head's spans whose kept attributes block (its frozen starting set and the added values that came again)
  // must not be written where a later span differs: a key set again with another value type, keys in another
  // order, fewer keys, more keys, and a first value that changes every span (the block kept anew after 16).
  const blockSet = Object.freeze({ 'http.request.method': 'GET' });
  const blockSpans: Array<Array<[string, Api.AttributeValue]>> = [
    [
      ['http.response.status_code', 200],
      ['http.route', '/a'],
    ],
    [
      ['http.response.status_code', 200],
      ['http.route', '/a'],
    ],
    [
      ['http.response.status_code', '200'],
      ['http.route', '/a'],
    ],
    [
      ['http.response.status_code', '200'],
      ['http.route', '/a'],
    ],
    [
      ['http.route', '/a'],
      ['http.response.status_code', '200'],
    ],
    [['http.route', '/a']],
    [
      ['http.route', '/a'],
      ['http.response.status_code', 201],
      ['openresponses.flag', true],
    ],
    [
      ['http.route', '/a'],
      ['http.response.status_code', 201],
      ['openresponses.flag', false],
    ],
    ...Array.from(
      { length: 20 },
      (_, i): Array<[string, Api.AttributeValue]> => [['openresponses.n', i < 18 ? i : 99]],
    ),
    [
      ['openresponses.n', 99],
      ['http.route', '/b'],
    ],
  ];
  // Another starting set (a block kept anew) whose later spans set another key to the same value.
  const otherSet = Object.freeze({ 'http.request.method': 'PUT' });
  const otherSpans: Array<Array<[string, Api.AttributeValue]>> = [
    [['http.route', '/a']],
    [['http.route', '/a']],
    [['openresponses.other', '/a']],
    [
      ['openresponses.other', '/a'],
      ['http.route', '/a'],
    ],
  ];
  for (const [set, pairs] of [
    ...blockSpans.map((pairs) => [blockSet, pairs] as const),
    ...otherSpans.map((pairs) => [otherSet, pairs] as const),
  ]) {
    const span = ownTracer.startSpan('block', { attributes: set }, ROOT_CONTEXT);
    for (const [key, value] of pairs) span.setAttribute(key, value);
    span.end();
  }
  const other = spansOf(resourceFromAttributes({ 'service.name': 'second', 'deployment.environment': 'test' }), (p) => {
    p.getTracer('@openresponses/server').startSpan('second resource').end();
  });
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const print = (name: string, list: readonly EncodableSpan[]) =>
    console.log(JSON.stringify({ name, spans: list.length, ours: hex(ours(list)), theirs: hex(theirs(list)) }));
  print('every shape, two resources', [...spans, ...other]);
  // Another order groups the same way the SDK groups (by resource, then scope, as first seen).
  print('other order', [other[0]!, ...spans.slice().reverse()]);
  print("the own tracer's spans", ownSpans);
  // A list that is not frozen, changed in place between two batches: the second span's kept block (or pair)
  // must not be the first's.
  const reasons = ['stop'];
  const listed = () => {
    ownTracer.startSpan('listed', { attributes: blockSet }, ROOT_CONTEXT).setAttribute('reasons', reasons).end();
    return ownSpans.pop()!;
  };
  print('a list changed in place, before', [listed()]);
  reasons.push('length');
  print('a list changed in place, after', [listed()]);
  // What each tracer recorded, ids and times aside (parents by position; flags, trace state, remote parents).
  const recorded = (list: readonly EncodableSpan[]) => {
    const ids = list.map((span) => span.spanContext().spanId);
    return list.map((span) => ({
      name: span.name,
      kind: span.kind,
      parent: span.parentSpanContext
        ? (ids.indexOf(span.parentSpanContext.spanId) ?? -1) + (span.parentSpanContext.isRemote ? 100 : 0)
        : undefined,
      sameTrace: span.spanContext().traceId === list[0]!.spanContext().traceId,
      flags: span.spanContext().traceFlags,
      traceState: span.spanContext().traceState?.serialize(),
      attributes: span.attributes,
      events: span.events.map((event) => [event.name, event.attributes]),
      links: span.links,
      status: span.status,
      dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
      durationOk: span.endTime[0] * 1e9 + span.endTime[1] >= span.startTime[0] * 1e9 + span.startTime[1],
      startsNow: Math.abs(span.startTime[0] - Date.now() / 1000) < 60,
    }));
  };
  console.log(JSON.stringify({ name: 'recorded', sdk: recorded(spans), own: recorded(ownSpans) }));
}
