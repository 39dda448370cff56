// OTLP trace export requests in protobuf (opentelemetry-proto's trace.proto and trace_service.proto), written
// by hand: each ended span goes at once into its batch's growing buffer (`SpanBatch.add`), so no span lives as
// an object graph until its batch is sent, and a batch becomes the request body in one pass
// (`SpanBatch.request`). Field order and defaults follow the SDK's own serializer
// (`@opentelemetry/otlp-transformer`'s ProtobufTraceSerializer): the same spans give the same bytes
// (test/otlp-protobuf.test.ts holds it); batches of them in ./span-batch.ts. Why our own:
// bench/telemetry.bench.ts's profile note.
import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import { ProtobufBuffer } from './protobuf-buffer.js';
import { SpanIds } from './span-ids.js';

export { ProtobufBuffer };

/** What is encoded of an ended span: the fields of the SDK's `ReadableSpan` that OTLP carries. */
export interface EncodableSpan {
  /** Its name. */
  readonly name: string;
  /** Its kind (the API's numbering). */
  readonly kind: SpanKind;
  /** Its ids, trace flags and trace state. */
  spanContext(): SpanContext;
  /** Its parent's context, when it has a parent. */
  readonly parentSpanContext?: SpanContext;
  /** Started, `[s, ns]` since the epoch. */
  readonly startTime: HrTime;
  /** Ended, `[s, ns]` since the epoch. */
  readonly endTime: HrTime;
  /** Its status. */
  readonly status: SpanStatus;
  /** Every attribute. */
  readonly attributes: Attributes;
  /** Its links. */
  readonly links: readonly Link[];
  /** Its events. */
  readonly events: readonly SpanEvent[];
  /** Attributes dropped at a limit. */
  readonly droppedAttributesCount: number;
  /** Events dropped at a limit. */
  readonly droppedEventsCount: number;
  /** Links dropped at a limit. */
  readonly droppedLinksCount: number;
  /** The resource it was made under. */
  readonly resource: SpanResource;
  /** Its tracer's scope. */
  readonly instrumentationScope: SpanScopeName;
  /**
   * The attributes in parts, when the span keeps them so (the CLI's own tracer): those it started with, as
   * given (a frozen set is encoded once and its bytes reused), and the keys and values of those set later, in
   * order; `restatesInitial` when one of those sets a starting one again (then `attributes` is written, where
   * it keeps its place). `attributes` otherwise.
   */
  readonly initial?: Attributes;
  readonly addedKeys?: readonly string[];
  readonly addedValues?: readonly AttributeValue[];
  readonly restatesInitial?: boolean;
}

/** A span event (the SDK's `TimedEvent`). */
export interface SpanEvent {
  /** When, `[s, ns]` since the epoch. */
  readonly time: HrTime;
  /** Its name (`exception` for a failure). */
  readonly name: string;
  /** Its attributes. */
  readonly attributes?: Attributes;
  /** Attributes dropped at a limit. */
  readonly droppedAttributesCount?: number;
}

/** The resource a span was made under (the SDK's `Resource`: its attributes once settled). */
export interface SpanResource {
  /** Its attributes (`service.name`, …). */
  readonly attributes: Attributes;
  /** Its semantic conventions' schema URL. */
  readonly schemaUrl?: string;
}

/** The instrumentation scope of a span's tracer. */
export interface SpanScopeName {
  /** The tracer's name (`@openresponses/server`). */
  readonly name: string;
  /** The tracer's version. */
  readonly version?: string;
  /** Its semantic conventions' schema URL. */
  readonly schemaUrl?: string;
  /** The scope's attributes. */
  readonly attributes?: Attributes;
  /** Scope attributes dropped at a limit. */
  readonly droppedAttributesCount?: number;
}

const INT64_MIN = -(2 ** 63);
const INT64_MAX = 2 ** 63;
// Span.flags: the W3C trace flags, and whether the parent was remote (known: always, as the SDK writes it).
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

/** A KeyValue's key field (tag, length, bytes) by key: a server uses a few dozen keys again and again. */
const keyFields = new Map<string, Uint8Array>();
const KEY_FIELDS_MAX = 1024;
function writeKey(out: ProtobufBuffer, key: string): void {
  let field = keyFields.get(key);
  if (field === undefined) {
    const scratch = new ProtobufBuffer(key.length * 3 + 8);
    scratch.tag(1, 2);
    scratch.string(key);
    field = scratch.written();
    if (keyFields.size < KEY_FIELDS_MAX) keyFields.set(key, field);
  }
  out.append(field);
}

// An object's own keys: for-in with Object.hasOwn measured as fast as an Object.keys loop (~2.4k instructions
// for 12 keys, callgrind), for-in alone 0.8k; the own tracer's spans keep their later attributes in arrays.
export function writeAttributes(out: ProtobufBuffer, field: number, attributes: Attributes): void {
  for (const key in attributes) if (Object.hasOwn(attributes, key)) writeAttribute(out, field, key, attributes[key]);
}

/** One KeyValue under `field`. */
function writeAttribute(out: ProtobufBuffer, field: number, key: string, value: AttributeValue | undefined): void {
  const pair = out.open(field);
  writeKey(out, key);
  const at = out.open(2);
  writeValue(out, value);
  out.close(at);
  out.close(pair);
}

/** An AnyValue: strings, booleans, int64 or double numbers, byte arrays, arrays; nothing for other values. */
function writeValue(out: ProtobufBuffer, value: AttributeValue | undefined | null | unknown): void {
  if (typeof value === 'string') {
    out.tag(1, 2);
    out.string(value);
  } else if (typeof value === 'boolean') {
    out.tag(2, 0);
    out.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_MAX) {
      out.tag(3, 0);
      out.int64(value);
    } else {
      out.tag(4, 1);
      out.double(value);
    }
  } else if (value instanceof Uint8Array) {
    out.tag(7, 2);
    out.raw(value);
  } else if (Array.isArray(value)) {
    const list = out.open(5);
    for (const item of value) {
      const entry = out.open(1);
      writeValue(out, item);
      out.close(entry);
    }
    out.close(list);
  } else if (typeof value === 'object' && value !== null) {
    const map = out.open(6);
    writeAttributes(out, 1, value as Attributes);
    out.close(map);
  }
}

/** Span attributes (field 9) of frozen starting sets, encoded once: the server starts its spans with a few. */
const frozenSets = new WeakMap<Attributes, Uint8Array>();
function writeSpanAttributes(out: ProtobufBuffer, span: EncodableSpan, initial: Attributes): void {
  // A starting attribute set again keeps its place with its new value (as the SDK's span keeps it).
  if (span.restatesInitial) {
    writeAttributes(out, 9, span.attributes);
    return;
  }
  if (Object.isFrozen(initial)) {
    let bytes = frozenSets.get(initial);
    if (bytes === undefined) {
      const scratch = new ProtobufBuffer(256);
      writeAttributes(scratch, 9, initial);
      bytes = scratch.written().slice();
      frozenSets.set(initial, bytes);
    }
    out.append(bytes);
  } else writeAttributes(out, 9, initial);
  const keys = span.addedKeys;
  if (keys === undefined) return;
  const values = span.addedValues!;
  for (let i = 0; i < keys.length; i++) writeAttribute(out, 9, keys[i]!, values[i]);
}

/** A trace id, as bytes when the context keeps them (the own tracer's), else from its hex. */
function writeTraceId(out: ProtobufBuffer, context: SpanContext): void {
  if (context instanceof SpanIds && context.traceBytes !== undefined)
    out.rawId(context.traceBytes, context.traceAt, 16);
  else out.hex(context.traceId);
}

/** A span id, as bytes when the context keeps them (the own tracer's), else from its hex. */
function writeSpanId(out: ProtobufBuffer, context: SpanContext): void {
  if (context instanceof SpanIds) out.rawId(context.spanBytes, context.spanAt, 8);
  else out.hex(context.spanId);
}

const flagsOf = (traceFlags: number, remote: boolean | undefined): number =>
  (traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (remote ? FLAGS_IS_REMOTE : 0);

/** One `Span` message under `field` (ScopeSpans.spans is field 2). */
export function writeSpan(out: ProtobufBuffer, field: number, span: EncodableSpan): void {
  const at = out.open(field);
  const context = span.spanContext();
  out.tag(1, 2);
  writeTraceId(out, context);
  out.tag(2, 2);
  writeSpanId(out, context);
  const traceState = context.traceState?.serialize();
  if (traceState) {
    out.tag(3, 2);
    out.string(traceState);
  }
  const parent = span.parentSpanContext;
  if (parent instanceof SpanIds || parent?.spanId) {
    out.tag(4, 2);
    writeSpanId(out, parent);
  }
  out.tag(5, 2);
  out.string(span.name);
  // The API's kinds start at INTERNAL = 0; OTLP's at UNSPECIFIED = 0.
  out.tag(6, 0);
  out.varint(span.kind + 1);
  out.tag(7, 1);
  out.time(span.startTime);
  out.tag(8, 1);
  out.time(span.endTime);
  if (span.initial === undefined) writeAttributes(out, 9, span.attributes);
  else writeSpanAttributes(out, span, span.initial);
  out.tag(10, 0);
  out.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    const entry = out.open(11);
    out.tag(1, 1);
    out.time(event.time);
    out.tag(2, 2);
    out.string(event.name);
    if (event.attributes) writeAttributes(out, 3, event.attributes);
    out.tag(4, 0);
    out.varint(event.droppedAttributesCount ?? 0);
    out.close(entry);
  }
  out.tag(12, 0);
  out.varint(span.droppedEventsCount);
  for (const link of span.links) {
    const entry = out.open(13);
    out.tag(1, 2);
    writeTraceId(out, link.context);
    out.tag(2, 2);
    writeSpanId(out, link.context);
    const linkState = link.context.traceState?.serialize();
    if (linkState) {
      out.tag(3, 2);
      out.string(linkState);
    }
    if (link.attributes) writeAttributes(out, 4, link.attributes);
    out.tag(5, 0);
    out.varint(link.droppedAttributesCount ?? 0);
    out.tag(6, 5);
    out.fixed32(flagsOf(link.context.traceFlags, link.context.isRemote));
    out.close(entry);
  }
  out.tag(14, 0);
  out.varint(span.droppedLinksCount);
  const status = out.open(15);
  if (span.status.message) {
    out.tag(2, 2);
    out.string(span.status.message);
  }
  out.tag(3, 0);
  out.varint(span.status.code);
  out.close(status);
  out.tag(16, 5);
  out.fixed32(flagsOf(context.traceFlags, parent?.isRemote));
  out.close(at);
}
