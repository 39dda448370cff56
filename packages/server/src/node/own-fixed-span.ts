// The server's spans in their fixed shape (telemetry/own-spans.ts): the own tracer's span (`SpanRecord`, as the
// general `OwnSpan`, but made by its own constructor: ./own-span.ts says why) with the attributes a span of its
// kind sets after its start in fields of their own (`SpanShape`, at most six), in the order the server sets them,
// written at its end from those fields (the starting set and the fields that stayed the same as one kept block,
// then each other field's KeyValue), and the context of its children itself. A key its shape has no field for, or
// a field set before one it already holds, turns it into the general span (what `OwnSpan` records) with what it
// holds so far, in order: what it records never differs from the API path.
import type { Attributes, AttributeValue, Context, SpanAttributes, SpanContext, SpanKind } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { HeadSlot } from '../telemetry/encodable-span.js';
import { HEAD_SAMPLED } from '../telemetry/head-sampling.js';
import { writeKeyValue, writeStartingSet } from '../telemetry/otlp-attributes.js';
import type { KeptBlock, OwnSpanTracer, SpanShape } from '../telemetry/own-spans.js';
import type { ProtobufBuffer } from '../telemetry/protobuf-buffer.js';
import { ChildContext, SPAN_KEY, type SpanScope } from '../telemetry/span-scope.js';
import { type SpanMaker, SpanRecord } from './own-span.js';
import { writeWhole } from './own-span-template.js';
import { wallClockMs } from './span-clock.js';
import { isAttributeValue } from './own-span-attributes.js';

/** A span in its fixed shape; its own scope (`span`, `context`). */
export class OwnFixedSpan extends SpanRecord implements Context, SpanScope {
  // The shape's fields, by position.
  declare private f0: AttributeValue | undefined;
  declare private f1: AttributeValue | undefined;
  declare private f2: AttributeValue | undefined;
  declare private f3: AttributeValue | undefined;
  declare private f4: AttributeValue | undefined;
  declare private f5: AttributeValue | undefined;
  /** The last field set (the next one set must come after it, or be one already set). */
  declare private last: number;
  /** Turned into the general span: its attributes are `SpanRecord`'s from then on. */
  declare private general: boolean;
  declare private readonly shape: SpanShape;
  /** Its shape's `extraKey` (a continued turn's previous response id), a starting attribute after `start`'s. */
  declare private readonly extraValue: AttributeValue | undefined;
  /**
   * Where its context finds what it does not hold: the context it was started in, or, started in one of the
   * server's own spans' contexts, that span's (a fixed span holds only itself and the head's mark, which every
   * fixed span holds), so a lookup walks past no span of the trace.
   */
  declare private readonly under: Context;

  constructor(
    maker: SpanMaker,
    shape: SpanShape,
    name: string,
    kind: SpanKind,
    ids: SpanContext,
    parentSpanContext: SpanContext | undefined,
    /** The starting set (a frozen one is written from its kept bytes). */
    start: Attributes,
    extraValue: AttributeValue | undefined,
    /** The context it was started in. */
    parentContext: Context,
  ) {
    super();
    // Every field of `SpanRecord`, in the order OwnSpan assigns them, then its own.
    this.tracer = maker;
    this.name = name;
    this.kind = kind;
    this.ids = ids;
    this.parentSpanContext = parentSpanContext;
    this.initial = start;
    this.added = undefined;
    this.count = 0;
    this.extras = undefined;
    this.endMs = 0;
    this.startMs = wallClockMs(performance.now());
    this.f0 = undefined;
    this.f1 = undefined;
    this.f2 = undefined;
    this.f3 = undefined;
    this.f4 = undefined;
    this.f5 = undefined;
    this.last = -1;
    this.general = false;
    this.shape = shape;
    this.extraValue = extraValue;
    this.under = parentContext instanceof OwnFixedSpan ? parentContext.under : parentContext;
  }

  /** Its shape's: the spans of a shape are named alike. */
  get headSlot(): HeadSlot {
    return this.shape.headSlot;
  }

  /** Itself: the span of its scope. */
  get span(): this {
    return this;
  }

  /** Itself: the context its children run in. */
  get context(): this {
    return this;
  }

  /** Its tracer while it records: its children's, in their fixed shape (`fixedTracerUnder`). */
  get fixedChildren(): OwnSpanTracer | undefined {
    // Made only by an `OwnSpanTracer` (own-tracer.ts' `startFixed`).
    return this.endMs === 0 ? (this.tracer as unknown as OwnSpanTracer) : undefined;
  }

  getValue(key: symbol): unknown {
    if (key === SPAN_KEY) return this;
    // Made only where the head sampler decided to record the trace (the request's span, then under it).
    if (key === HEAD_SAMPLED) return true;
    return this.under.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChildContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChildContext(this, key, undefined);
  }

  override setAttribute(key: string, value: SpanAttributes[string]): this {
    if (this.general) return super.setAttribute(key, value);
    if (value == null || !this.isRecording() || !isAttributeValue(value)) return this;
    // The server sets a shape's keys in its order: the one after the last set first, then a loop, not `indexOf`
    // (six keys at most, compared inline rather than through the builtin: ~130 instructions a call).
    const keys = this.shape.keys;
    let field = this.last + 1;
    if (keys[field] !== key) {
      field = keys.length - 1;
      while (field >= 0 && keys[field] !== key) field--;
    }
    if (field < 0 || (field < this.last && this.fieldAt(field) === undefined)) {
      this.toGeneral();
      return super.setAttribute(key, value);
    }
    if (field > this.last) this.last = field;
    switch (field) {
      case 0:
        this.f0 = value;
        break;
      case 1:
        this.f1 = value;
        break;
      case 2:
        this.f2 = value;
        break;
      case 3:
        this.f3 = value;
        break;
      case 4:
        this.f4 = value;
        break;
      default:
        this.f5 = value;
    }
    return this;
  }

  /**
   * Sets the shape's first fields to `v0`… (an undefined one left unset; no more than the shape has): what
   * `setAttribute` with each field's key does, in one call (the ends in telemetry/span-ends.ts).
   */
  setFields(
    v0: AttributeValue | undefined,
    v1?: AttributeValue,
    v2?: AttributeValue,
    v3?: AttributeValue,
    v4?: AttributeValue,
  ): void {
    // Nothing set yet on a recording span in its shape (the ends' case): the fields themselves, with no key search.
    if (!this.general && this.endMs === 0 && this.last === -1) {
      let last = -1;
      if (v0 != null && isAttributeValue(v0)) {
        this.f0 = v0;
        last = 0;
      }
      if (v1 != null && isAttributeValue(v1)) {
        this.f1 = v1;
        last = 1;
      }
      if (v2 != null && isAttributeValue(v2)) {
        this.f2 = v2;
        last = 2;
      }
      if (v3 != null && isAttributeValue(v3)) {
        this.f3 = v3;
        last = 3;
      }
      if (v4 != null && isAttributeValue(v4)) {
        this.f4 = v4;
        last = 4;
      }
      this.last = last;
      return;
    }
    const keys = this.shape.keys;
    if (v0 !== undefined) this.setAttribute(keys[0]!, v0);
    if (v1 !== undefined) this.setAttribute(keys[1]!, v1);
    if (v2 !== undefined) this.setAttribute(keys[2]!, v2);
    if (v3 !== undefined) this.setAttribute(keys[3]!, v3);
    if (v4 !== undefined) this.setAttribute(keys[4]!, v4);
  }

  /** Its shape's field at `field` (the template reads them too: ./own-span-template.ts). */
  fieldAt(field: number): AttributeValue | undefined {
    switch (field) {
      case 0:
        return this.f0;
      case 1:
        return this.f1;
      case 2:
        return this.f2;
      case 3:
        return this.f3;
      case 4:
        return this.f4;
      default:
        return this.f5;
    }
  }

  /** Whether it was turned into the general span (`added` holds its later attributes). */
  get generalized(): boolean {
    return this.general;
  }

  /** Hands what it holds to the general span, in the order it was set (the extra starting attribute first). */
  private toGeneral(): void {
    this.general = true;
    if (this.extraValue !== undefined) super.setAttribute(this.shape.extraKey!, this.extraValue);
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldAt(field);
      if (value !== undefined) super.setAttribute(this.shape.keys[field]!, value);
    }
  }

  override get attributes(): Attributes {
    if (this.general) return super.attributes;
    const all: Attributes = { ...this.initial };
    if (this.extraValue !== undefined) all[this.shape.extraKey!] = this.extraValue;
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldAt(field);
      if (value !== undefined) all[this.shape.keys[field]!] = value;
    }
    return all;
  }

  /**
   * Writes its attributes (Span field 9) from its fields; false once it is the general span (nothing written). A
   * frozen starting set and the fields that were the same in the last span of its shape and set come as one block
   * (`KeptBlock`); no block with a continued turn's previous response id (one per turn, never the same).
   */
  encodeAttributes(out: ProtobufBuffer): boolean {
    if (this.general) return false;
    if (this.extraValue !== undefined) {
      writeStartingSet(out, this.initial);
      writeKeyValue(out, 9, this.shape.extraEntry!, this.extraValue);
      this.writeFields(out, 0);
      return true;
    }
    const initial = this.initial;
    const kept = this.shape.kept;
    const block = keptFor(kept, initial);
    if (block === undefined) {
      const start = out.pos;
      if (!writeStartingSet(out, initial)) {
        this.writeFields(out, 0);
        return true;
      }
      this.keepBlock(out, start, initial, kept);
      return true;
    }
    const same = this.sameFields(block);
    if (same > 0 || this.last < 0) block.misses = 0;
    else if (++block.misses >= BLOCK_RETRY) {
      // The block's fields changed span after span and now stay: kept anew from this span.
      kept.splice(kept.indexOf(block), 1);
      const start = out.pos;
      writeStartingSet(out, initial);
      this.keepBlock(out, start, initial, kept);
      return true;
    }
    out.append(block.bytes);
    this.writeFields(out, same);
    return true;
  }

  /**
   * Its head, times and attributes from its block's template (`KeptBlock.headed`): one `set` where the encoder
   * would write the head and the block apart (~200 instructions a `set`, callgrind). False, with nothing
   * written, where `encodeAttributes` has more to do than write the block and its later fields.
   */
  encodeFromHead(out: ProtobufBuffer, head: Uint8Array): boolean {
    if (this.general || this.extraValue !== undefined) return false;
    const block = keptFor(this.shape.kept, this.initial);
    if (block === undefined) return false;
    const same = this.sameFields(block);
    if (same > 0 || this.last < 0) block.misses = 0;
    // The block is kept anew from this span (`encodeAttributes`, which finds it with its fields already cut).
    else if (block.misses + 1 >= BLOCK_RETRY) return false;
    else block.misses++;
    let headed = block.headed;
    if (headed === undefined || block.headedBy !== head) {
      headed = new Uint8Array(head.length + TIMES_BYTES + block.bytes.length);
      headed.set(head);
      headed.set(block.bytes, head.length + TIMES_BYTES);
      block.headed = headed;
      block.headedBy = head;
    }
    const at = out.pos;
    out.append(headed);
    out.timesMsAt(at + head.length, this.startMs, this.endMs);
    this.writeFields(out, same);
    return true;
  }

  /** The whole span from its block's template (./own-span-template.ts), where its tail is the usual one. */
  encodeWhole(out: ProtobufBuffer, head: Uint8Array): boolean {
    if (this.general || this.extraValue !== undefined || this.extras !== undefined) return false;
    const block = keptFor(this.shape.kept, this.initial);
    return block !== undefined && writeWhole(out, head, block, this);
  }

  get lastField(): number {
    return this.last;
  }

  /** How many of `block`'s first fields this span set the same; the block cut to them. */
  private sameFields(block: KeptBlock): number {
    const values = block.values;
    let same = 0;
    while (same < values.length && this.fieldAt(same) === values[same]) same++;
    if (same < values.length) {
      block.bytes = block.bytes.slice(0, block.ends[same]);
      block.headed = undefined;
      block.whole = undefined;
      values.length = same;
      block.ends.length = same + 1;
    }
    return same;
  }

  /** Its fields from `from` on (unset ones write nothing). */
  private writeFields(out: ProtobufBuffer, from: number): void {
    const entries = this.shape.entries;
    for (let field = from; field <= this.last; field++) {
      const value = this.fieldAt(field);
      if (value !== undefined) writeKeyValue(out, 9, entries[field]!, value);
    }
  }

  /**
   * Writes its fields after its starting set (written from `start`) and keeps the bytes as its shape's block for
   * `initial`: the set and each field up to the first whose value is not kept by identity (an unfrozen object).
   */
  private keepBlock(out: ProtobufBuffer, start: number, initial: Attributes, kept: KeptBlock[]): void {
    const entries = this.shape.entries;
    const values: unknown[] = [];
    const ends = [out.pos - start];
    let keeping = true;
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldAt(field);
      if (value !== undefined) writeKeyValue(out, 9, entries[field]!, value);
      if (keeping && (typeof value !== 'object' || Object.isFrozen(value)) && out.pos - start <= BLOCK_BYTES) {
        values.push(value);
        ends.push(out.pos - start);
      } else keeping = false;
    }
    if (kept.length >= KEPT_BLOCKS) kept.shift();
    kept.push({
      initial,
      bytes: out.bytes.slice(start, start + ends[values.length]!),
      values,
      ends,
      misses: 0,
      headed: undefined,
      headedBy: undefined,
      whole: undefined,
      wholeMisses: 0,
    });
  }
}

/** The block kept for spans of a shape started with `initial`. */
function keptFor(kept: readonly KeptBlock[], initial: Attributes): KeptBlock | undefined {
  for (let i = 0; i < kept.length; i++) if (kept[i]!.initial === initial) return kept[i];
  return undefined;
}

/** A span's start and end time fields: tag 7's fixed64 (its tag ends the head), tag 8 and its fixed64. */
const TIMES_BYTES = 17;

/** Blocks kept a shape at most (its spans' starting sets: a store's operations, a turn's models). */
const KEPT_BLOCKS = 4;
/** A kept block's bytes at most. */
const BLOCK_BYTES = 1024;
/** Spans in a row matching none of a block's fields before it is kept anew. */
const BLOCK_RETRY = 16;
