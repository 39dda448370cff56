// A fixed span (./own-fixed-span.ts) written whole from a template: the general writer's bytes for the last span
// of its head and block (telemetry/otlp-protobuf.ts' `writeSpan`), kept on the block, then one `set` a span with
// its ids, times and fields after the block patched in where each takes as many bytes as in the template (as the
// floor writes a turn's spans: bench/fixtures/telemetry-floor.ts). What the general writer would write, byte for
// byte (test/span-template.test.ts).
import type { AttributeValue } from '@opentelemetry/api';
import type { EncodableSpan } from '../telemetry/encodable-span.js';
import { writeAsciiAt } from '../telemetry/otlp-attributes.js';
import { writeSpan } from '../telemetry/otlp-protobuf.js';
import type { KeptBlock, WholeTemplate } from '../telemetry/own-spans.js';
import { ProtobufBuffer, varintSize } from '../telemetry/protobuf-buffer.js';
import { SpanIds } from '../telemetry/span-ids.js';

/** A fixed span as the template reads it: its shape's fields by position, the last it set, its clock's times. */
export interface TemplatedSpan extends EncodableSpan {
  fieldAt(field: number): AttributeValue | undefined;
  readonly lastField: number;
  readonly startMs: number;
  readonly endMs: number;
}

/** A span's start and end time fields after its head: 8 bytes, tag 8, 8 bytes. */
const TIMES_BYTES = 17;
/** Spans in a row whose fields after the block do not fit the template before it is made anew. */
const WHOLE_RETRY = 4;
/** Held while `makeWhole` runs the general writer for a span (so that it does not come back here). */
let makingWhole = false;
const scratch = new ProtobufBuffer(512);

/**
 * `span` whole from `block`'s template (`EncodableSpan.encodeWhole`; `head`, its name and kind's kept bytes),
 * answering true: where it set the block's fields to the block's values, its later fields take as many bytes as
 * the template's (a response id of one length, token counts of one varint size), and nothing else varies (the
 * caller checked that the tail is the usual one). Its ids are the own tracer's, of a trace started here, with no
 * parent or one of ours: 28 or 38 bytes at a fixed place. False, with nothing written, otherwise.
 */
export function writeWhole(out: ProtobufBuffer, head: Uint8Array, block: KeptBlock, span: TemplatedSpan): boolean {
  if (makingWhole) return false;
  const ids = span.spanContext();
  const parent = span.parentSpanContext;
  if (!(ids instanceof SpanIds) || ids.traceState !== undefined) return false;
  const hasParent = parent !== undefined;
  if (hasParent && !(parent instanceof SpanIds)) return false;
  const trace = ids.traceView;
  if (trace === undefined) return false;
  const values = block.values;
  const kept = values.length;
  for (let field = 0; field < kept; field++) if (span.fieldAt(field) !== values[field]) return false;
  const last = span.lastField;
  let whole = block.whole;
  if (
    whole === undefined ||
    whole.head !== head ||
    whole.parent !== hasParent ||
    whole.flags !== ids.traceFlags ||
    whole.last !== last ||
    !fits(span, whole.sizes, kept, last)
  ) {
    // A template of other lengths is kept a few spans before it is made anew (lengths that alternate, a token
    // count across a power of 128, would make one every span).
    if (whole !== undefined && ++block.wholeMisses < WHOLE_RETRY) return false;
    whole = makeWhole(span, block, head, hasParent);
    if (whole === undefined) return false;
  }
  block.wholeMisses = 0;
  block.misses = 0;
  const at = out.pos;
  out.append(whole.bytes);
  // The ids after the message's tag and length: 1: trace_id (its tag and length 2 bytes), 2: span_id, 4: parent.
  const into = out.view;
  const p = at + whole.idsAt;
  const traceAt = ids.traceAt;
  into.setUint32(p + 2, trace.getUint32(traceAt, true), true);
  into.setUint32(p + 6, trace.getUint32(traceAt + 4, true), true);
  into.setUint32(p + 10, trace.getUint32(traceAt + 8, true), true);
  into.setUint32(p + 14, trace.getUint32(traceAt + 12, true), true);
  const spanView = ids.spanView;
  const spanAt = ids.spanAt;
  into.setUint32(p + 20, spanView.getUint32(spanAt, true), true);
  into.setUint32(p + 24, spanView.getUint32(spanAt + 4, true), true);
  if (hasParent) {
    const from = parent.spanView;
    const parentAt = parent.spanAt;
    into.setUint32(p + 30, from.getUint32(parentAt, true), true);
    into.setUint32(p + 34, from.getUint32(parentAt + 4, true), true);
  }
  out.timesMsAt(p + (hasParent ? 38 : 28) + head.length, span.startMs, span.endMs);
  // The fields after the block: each value's bytes in the template's room for them.
  const offsets = whole.offsets;
  for (let field = kept; field <= last; field++) {
    const value = span.fieldAt(field);
    const to = at + offsets[field - kept]!;
    if (typeof value === 'string') {
      if (!writeAsciiAt(out, to, value)) {
        // Not ASCII: more bytes than the template has for it.
        out.pos = at;
        return false;
      }
    } else if (typeof value === 'number') {
      // ProtobufBuffer.varint's loop, here in place: writeWhole's inlining budget is spent, and a shared
      // `varintAt` was a call (callgrind: the encoding functions +100-125 instructions a turn; the Span-path note).
      const bytes = out.bytes;
      let rest = value;
      let write = to;
      while (rest > 0x7f) {
        bytes[write++] = (rest & 0x7f) | 0x80;
        rest >>>= 7;
      }
      bytes[write] = rest;
    }
  }
  return true;
}

/** Whether `span`'s fields after the block's `kept` take the template's `sizes` (what `makeWhole` can patch). */
function fits(span: TemplatedSpan, sizes: readonly number[], kept: number, last: number): boolean {
  for (let field = kept; field <= last; field++) {
    const value = span.fieldAt(field);
    const size = sizes[field - kept]!;
    if (value === undefined) {
      if (size !== 0) return false;
    } else if (typeof value === 'string') {
      if (value.length !== size || size === 0) return false;
    } else if (typeof value !== 'number' || !(value >= 0 && value < 0x80000000) || !Number.isInteger(value))
      return false;
    else if (-varintSize(value) !== size) return false;
  }
  return true;
}

/** `block`'s template, written by the general writer from `span`; undefined where its layout is not one to patch. */
function makeWhole(
  span: TemplatedSpan,
  block: KeptBlock,
  head: Uint8Array,
  hasParent: boolean,
): WholeTemplate | undefined {
  scratch.pos = 0;
  makingWhole = true;
  try {
    writeSpan(scratch, 2, span);
  } finally {
    makingWhole = false;
  }
  const bytes = scratch.bytes;
  let idsAt = 2;
  while (bytes[idsAt - 1]! & 0x80) idsAt++;
  const idsLength = hasParent ? 38 : 28;
  // The general writer wrote own ids, then the head and its times (tag 7, fixed64), as `writeWhole` patches them.
  if (
    bytes[idsAt] !== 0x0a ||
    bytes[idsAt + 18] !== 0x12 ||
    (hasParent ? bytes[idsAt + 28] !== 0x22 : bytes[idsAt + 28] === 0x22) ||
    bytes[idsAt + idsLength + head.length - 1] !== 0x39
  )
    return undefined;
  // Its fields after the block, each a KeyValue of a short ASCII string (value = 2 { string_value = 1 }) or a
  // small integer (int_value = 3), lengths in one byte (`writePair`'s one pass); any other: no template.
  const kept = block.values.length;
  const last = span.lastField;
  const offsets: number[] = [];
  const sizes: number[] = [];
  let q = idsAt + idsLength + head.length + TIMES_BYTES + block.bytes.length;
  for (let field = kept; field <= last; field++) {
    const value = span.fieldAt(field);
    if (value === undefined) {
      offsets.push(0);
      sizes.push(0);
      continue;
    }
    if (bytes[q] !== 0x4a || bytes[q + 1]! >= 0x80 || bytes[q + 2] !== 0x0a) return undefined;
    const any = q + 4 + bytes[q + 3]!;
    if (bytes[any] !== 0x12) return undefined;
    if (typeof value === 'string' && value.length > 0 && bytes[any + 2] === 0x0a && bytes[any + 3] === value.length) {
      offsets.push(any + 4);
      sizes.push(value.length);
    } else if (
      typeof value === 'number' &&
      bytes[any + 2] === 0x18 &&
      value >= 0 &&
      value < 0x80000000 &&
      Number.isInteger(value)
    ) {
      offsets.push(any + 3);
      sizes.push(-varintSize(value));
    } else return undefined;
    q += 2 + bytes[q + 1]!;
  }
  if (q + 16 !== scratch.pos) return undefined;
  const whole: WholeTemplate = {
    bytes: bytes.slice(0, scratch.pos),
    head,
    parent: hasParent,
    flags: (span.spanContext() as SpanIds).traceFlags,
    idsAt,
    last,
    offsets,
    sizes,
  };
  block.whole = whole;
  return whole;
}
