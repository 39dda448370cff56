// OTLP trace export requests in protobuf (opentelemetry-proto's trace.proto and trace_service.proto), written
// by hand: each ended span goes at once into its batch's growing buffer (`SpanBatch.add`), so no span lives as
// an object graph until its batch is sent, and a batch becomes the request body in one pass
// (`SpanBatch.request`). Field order and defaults follow the SDK's own serializer
// (`@opentelemetry/otlp-transformer`'s ProtobufTraceSerializer): the same spans give the same bytes
// (test/otlp-protobuf.test.ts holds it); batches of them in ./span-batch.ts. Why our own:
// bench/telemetry.bench.ts's profile note.
import type { Attributes, AttributeValue, SpanContext, SpanKind } from '@opentelemetry/api';
import type { EncodableSpan } from './encodable-span.js';
import { type KeyEntry, keyEntry, writeAttributes, writeKeyValue, writeStartingSet } from './otlp-attributes.js';
import { ProtobufBuffer } from './protobuf-buffer.js';
import { SpanIds } from './span-ids.js';

export { ProtobufBuffer, writeAttributes };

// Span.flags: the W3C trace flags, and whether the parent was remote (known: always, as the SDK writes it).
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

function writeSpanAttributes(
  out: ProtobufBuffer,
  span: EncodableSpan,
  initial: Attributes,
  head: Head | undefined,
): void {
  // A starting attribute set again keeps its place with its new value (as the SDK's span keeps it).
  if (span.restatesInitial) {
    writeAttributes(out, 9, span.attributes);
    return;
  }
  const added = span.added;
  const count = added === undefined ? 0 : added.length >> 1;
  // The first added attribute written one by one, and where the written block starts when it is to be kept.
  let from = 0;
  let keepAt = -1;
  const block = head?.block;
  if (block !== undefined && head!.blockInitial === initial) {
    // The head's kept block: its starting set and the added attributes that were the same span after span.
    const kept = head!.blockAdded;
    const limit = Math.min(kept.length >> 1, count);
    let same = 0;
    while (same < limit && added![2 * same] === kept[2 * same] && added![2 * same + 1] === kept[2 * same + 1]) same++;
    if (2 * same < kept.length) shortenBlock(head!, same);
    if (same > 0 || count === 0) head!.blockMisses = 0;
    else if (++head!.blockMisses >= BLOCK_RETRY) keepAt = out.pos;
    out.append(head!.block!);
    from = same;
  } else {
    const at = out.pos;
    if (writeStartingSet(out, initial) && head !== undefined) keepAt = at;
  }
  // Where each added attribute ends in the block to keep: those with a value kept by identity (a primitive or
  // a frozen list), from the first, within BLOCK_BYTES.
  const ends = keepAt >= 0 ? [out.pos - keepAt] : undefined;
  // The keys set after the start are the same, in the same order, for most spans of one head: their entries
  // kept there are found without a Map lookup.
  const keptKeys = head?.keys;
  const keptEntries = head?.entries;
  for (let i = from; i < count; i++) {
    const key = added![2 * i] as string;
    let entry = keptEntries?.[i];
    if (entry === undefined || keptKeys![i] !== key) {
      entry = keyEntry(key);
      if (keptKeys !== undefined && i < KEPT_KEYS) {
        keptKeys[i] = key;
        keptEntries![i] = entry;
      }
    }
    const value = added![2 * i + 1] as AttributeValue;
    writeKeyValue(out, 9, entry, value);
    if (
      ends !== undefined &&
      ends.length === i + 1 &&
      out.pos - keepAt <= BLOCK_BYTES &&
      (typeof value !== 'object' || Object.isFrozen(value))
    )
      ends.push(out.pos - keepAt);
  }
  if (ends !== undefined) {
    const pairs = ends.length - 1;
    head!.block = out.bytes.slice(keepAt, keepAt + ends[pairs]!);
    head!.blockInitial = initial;
    head!.blockAdded = added === undefined ? [] : added.slice(0, 2 * pairs);
    head!.blockEnds = ends;
    head!.blockMisses = 0;
  }
}

/** The head's block cut to its starting set and first `pairs` added attributes (those the latest span had too). */
function shortenBlock(head: Head, pairs: number): void {
  head.block = head.block!.slice(0, head.blockEnds[pairs]);
  head.blockAdded.length = 2 * pairs;
  head.blockEnds.length = pairs + 1;
}

/** A trace id, as bytes when the context keeps them (the own tracer's), else from its hex. */
function writeTraceId(out: ProtobufBuffer, context: SpanContext): void {
  if (context instanceof SpanIds && context.traceView !== undefined) out.rawId(context.traceView, context.traceAt, 16);
  else out.hex(context.traceId);
}

/** A span id, as bytes when the context keeps them (the own tracer's), else from its hex. */
function writeSpanId(out: ProtobufBuffer, context: SpanContext): void {
  if (context instanceof SpanIds) out.rawId(context.spanView, context.spanAt, 8);
  else out.hex(context.spanId);
}

const flagsOf = (traceFlags: number, remote: boolean | undefined): number =>
  (traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (remote ? FLAGS_IS_REMOTE : 0);

/**
 * The ids of a span of the own tracer (trace id field 1, span id 2, its parent's 4), with no hex made. A trace
 * started here (its ids and its parent's in the pool) is written as unrolled 32-bit words from the pool's views,
 * tags and lengths as 16-bit words: no call, loop or room check per id (callgrind: a gateway turn's eleven ids
 * ~1.7k instructions fewer than through `rawId`). False (nothing written) for a trace continued from a caller
 * with trace state, or a parent that is not ours and not a caller's.
 */
function writeOwnIds(out: ProtobufBuffer, context: SpanIds, parent: SpanContext | undefined): boolean {
  if (context.traceState !== undefined) return false;
  const ownParent = parent instanceof SpanIds;
  if (parent !== undefined && !ownParent && !parent.spanId) return false;
  const trace = context.traceView;
  if (trace === undefined || (parent !== undefined && !ownParent)) {
    // A trace continued from a caller: its trace id and the caller's span id are hex.
    out.reserve(36);
    if (trace === undefined) {
      out.tag(1, 2);
      out.hex(context.traceId);
    } else {
      out.bytes[out.pos++] = 0x0a;
      out.rawId(trace, context.traceAt, 16);
    }
    out.bytes[out.pos++] = 0x12;
    out.rawId(context.spanView, context.spanAt, 8);
    if (parent !== undefined) {
      out.tag(4, 2);
      out.hex(parent.spanId);
    }
    return true;
  }
  out.reserve(38);
  const into = out.view;
  const p = out.pos;
  const traceAt = context.traceAt;
  into.setUint16(p, 0x100a, true); // 1: trace_id, 16 bytes
  into.setUint32(p + 2, trace.getUint32(traceAt, true), true);
  into.setUint32(p + 6, trace.getUint32(traceAt + 4, true), true);
  into.setUint32(p + 10, trace.getUint32(traceAt + 8, true), true);
  into.setUint32(p + 14, trace.getUint32(traceAt + 12, true), true);
  const span = context.spanView;
  const spanAt = context.spanAt;
  into.setUint16(p + 18, 0x0812, true); // 2: span_id, 8 bytes
  into.setUint32(p + 20, span.getUint32(spanAt, true), true);
  into.setUint32(p + 24, span.getUint32(spanAt + 4, true), true);
  if (ownParent) {
    const from = parent.spanView;
    const at = parent.spanAt;
    into.setUint16(p + 28, 0x0822, true); // 4: parent_span_id, 8 bytes
    into.setUint32(p + 30, from.getUint32(at, true), true);
    into.setUint32(p + 34, from.getUint32(at + 4, true), true);
    out.pos = p + 38;
  } else out.pos = p + 28;
  return true;
}

/**
 * A span's head as written once per name and kind: its name field (tag 5, length, UTF-8), its kind (6) and the
 * tag of its start time (7), the constant bytes between its ids and its times; a server names its spans with a
 * few names again and again. By name, a head per kind (the API's 0 to 4).
 */
const heads = new Map<string, Array<Head | undefined>>();
/**
 * A kept head; the keys set after the start in the last span written with it, with their entries; and the
 * varint size of that span's length (most spans take 2 bytes: kept for it, no move at the close).
 */
export interface Head {
  /** Its bytes, exactly (written by one `set`: a call to `copy`'s word loop cost ~300 instructions a head). */
  readonly bytes: Uint8Array;
  readonly keys: string[];
  readonly entries: KeyEntry[];
  lengthSize: number;
  /**
   * The attributes block (field 9's KeyValues) last kept for a span of this head, written again by one `set`:
   * its frozen starting set's bytes, then those of its first added attributes, cut at the first that a later
   * span set to another value or key (a turn's model stays, its response id does not). `blockEnds[i]` is where
   * the block's `i`-th added attribute begins (`blockEnds[0]`: the starting set's end).
   */
  block: Uint8Array | undefined;
  blockInitial: Attributes | undefined;
  /** The block's added attributes as key, value, key, value (the span's `added`, cut). */
  blockAdded: unknown[];
  blockEnds: number[];
  /** Spans in a row that matched only the block's starting set: at BLOCK_RETRY, the block is kept anew. */
  blockMisses: number;
}
/** A kept attributes block's bytes at most. */
const BLOCK_BYTES = 1024;
const BLOCK_RETRY = 16;
/** Keys after the start kept a head at most. */
const KEPT_KEYS = 16;
/** Names kept at most, and the longest kept (names are bounded: model names past 256 characters are `_OTHER`). */
const HEADS_MAX = 1024;
const KEPT_NAME_LENGTH = 300;
/** The kept head of `name` and `kind`, made at the first span of them; undefined when not kept. */
function headOf(name: string, kind: SpanKind): Head | undefined {
  let byKind = heads.get(name);
  let head = byKind?.[kind];
  if (head !== undefined) return head;
  if (
    name.length > KEPT_NAME_LENGTH ||
    kind >>> 0 !== kind ||
    kind > 4 ||
    (byKind === undefined && heads.size >= HEADS_MAX)
  )
    return undefined;
  const written = ProtobufBuffer.stringField(5, name);
  writeKind(written, kind);
  head = {
    bytes: written.written().slice(),
    keys: [],
    entries: [],
    lengthSize: 1,
    block: undefined,
    blockInitial: undefined,
    blockAdded: [],
    blockEnds: [],
    blockMisses: 0,
  };
  if (byKind === undefined) heads.set(name, (byKind = []));
  byKind[kind] = head;
  return head;
}

/** The head's bytes, kept or written in place. */
function writeHead(out: ProtobufBuffer, name: string, kind: SpanKind, head: Head | undefined): void {
  if (head !== undefined) {
    out.append(head.bytes);
    return;
  }
  out.tag(5, 2);
  out.string(name);
  writeKind(out, kind);
}

/** The kind field and the start time's tag. The API's kinds start at INTERNAL = 0; OTLP's at UNSPECIFIED = 0. */
function writeKind(out: ProtobufBuffer, kind: SpanKind): void {
  out.tag(6, 0);
  out.varint(kind + 1);
  out.tag(7, 1);
}

/** One `Span` message under `field` (ScopeSpans.spans is field 2). */
export function writeSpan(out: ProtobufBuffer, field: number, span: EncodableSpan): void {
  const { name, kind } = span;
  const slot = span.headSlot;
  let head: Head | undefined;
  if (slot !== undefined && slot.name === name && slot.kind === kind) head = slot.head;
  else {
    head = headOf(name, kind);
    if (slot !== undefined && head !== undefined) {
      slot.name = name;
      slot.kind = kind;
      slot.head = head;
    }
  }
  const clockTimes = span.clockTimes === true;
  if (clockTimes && head !== undefined && field === 2 && span.encodeWhole?.(out, head.bytes) === true) return;
  const lengthSize = head === undefined ? 1 : head.lengthSize;
  let at: number;
  if (field < 16) {
    // `open` in line: its tag is one byte (ScopeSpans.spans is field 2), no varint loop and one room check.
    out.reserve(1 + lengthSize);
    at = out.pos + 1;
    out.bytes[at - 1] = (field << 3) | 2;
    out.pos = at + lengthSize;
  } else at = out.open(field, lengthSize);
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  if (!(context instanceof SpanIds && writeOwnIds(out, context, parent))) {
    out.tag(1, 2);
    writeTraceId(out, context);
    out.tag(2, 2);
    writeSpanId(out, context);
    const traceState = context.traceState?.serialize();
    if (traceState) {
      out.tag(3, 2);
      out.string(traceState);
    }
    if (parent instanceof SpanIds || parent?.spanId) {
      out.tag(4, 2);
      writeSpanId(out, parent);
    }
  }
  if (!(clockTimes && head !== undefined && span.encodeFromHead?.(out, head.bytes) === true)) {
    writeHead(out, name, kind, head);
    if (clockTimes) {
      out.timesMs(span.startMs!, span.endMs!);
    } else {
      out.time(span.startTime);
      out.tag(8, 1);
      out.time(span.endTime);
    }
    if (span.initial === undefined) writeAttributes(out, 9, span.attributes);
    else if (span.encodeAttributes?.(out) !== true) writeSpanAttributes(out, span, span.initial, head);
  }
  const { events, links, status: spanStatus } = span;
  const dropped = span.droppedAttributesCount;
  if (
    events.length === 0 &&
    links.length === 0 &&
    !spanStatus.message &&
    dropped < 0x80 &&
    span.droppedEventsCount === 0 &&
    span.droppedLinksCount === 0
  ) {
    // Most spans: no events, links or status message, nothing dropped past a byte. The fields from 10 on as
    // the general path below writes them, in one pass.
    out.reserve(16);
    const view = out.view;
    const p = out.pos;
    const flags = flagsOf(context.traceFlags, parent?.isRemote);
    // 10: dropped_attributes_count; 12: dropped_events_count = 0; 14: dropped_links_count = 0; 15: status
    // { code = 3 }; 16: flags, fixed32. Four little-endian words, not sixteen checked byte stores.
    view.setUint32(p, 0x0060_0050 | (dropped << 8), true);
    view.setUint32(p + 4, 0x027a_0070, true);
    view.setUint32(p + 8, 0x0185_0018 | (spanStatus.code << 8), true);
    view.setUint32(p + 12, flags & 0xffff, true);
    out.pos = p + 16;
    if (head === undefined) out.close(at, lengthSize);
    else head.lengthSize = out.close(at, lengthSize);
    return;
  }
  out.tag(10, 0);
  out.varint(dropped);
  for (const event of events) {
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
  for (const link of links) {
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
  if (head === undefined) out.close(at, lengthSize);
  else head.lengthSize = out.close(at, lengthSize);
}
