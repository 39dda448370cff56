// The server's spans in their fixed shape (telemetry/own-spans.ts): the own tracer's span with the attributes a
// span of its kind sets after its start in fields of their own (`SpanShape`, at most six), in the order the
// server sets them, written at its end from those fields (the starting set's kept bytes, then each field's
// KeyValue; or the runs of the block its shape kept for its starting set whose values are the same, `KeptBlock`),
// and the context of its children itself. A key its shape has no field for, or a field set before one
// it already holds, turns it into the general span (`OwnSpan`) with what it holds so far, in order: what it
// records never differs from the API path.
import type { Attributes, AttributeValue, Context, SpanAttributes, SpanContext, SpanKind } from '@opentelemetry/api';
import { HEAD_SAMPLED } from '../telemetry/head-sampling.js';
import { keyEntry, writeKeyValue, writeStartingSet } from '../telemetry/otlp-attributes.js';
import {
  KEPT_BLOCKS,
  KEPT_BYTES,
  KEPT_RETRY,
  type KeptBlock,
  type KeptBlocks,
  NOT_KEPT,
  type SpanShape,
} from '../telemetry/own-spans.js';
import type { ProtobufBuffer } from '../telemetry/protobuf-buffer.js';
import { ChildContext, SPAN_KEY, type SpanScope } from '../telemetry/span-scope.js';
import { OwnSpan, type SpanMaker } from './own-span.js';
import { isAttributeValue } from './own-span-attributes.js';

/** A span in its fixed shape; its own scope (`span`, `context`). */
export class OwnFixedSpan extends OwnSpan implements Context, SpanScope {
  // The shape's fields, by position.
  private f0: AttributeValue | undefined = undefined;
  private f1: AttributeValue | undefined = undefined;
  private f2: AttributeValue | undefined = undefined;
  private f3: AttributeValue | undefined = undefined;
  private f4: AttributeValue | undefined = undefined;
  private f5: AttributeValue | undefined = undefined;
  /** The last field set (the next one set must come after it, or be one already set). */
  private last = -1;
  /** Turned into the general span: its attributes are `OwnSpan`'s from then on. */
  private general = false;

  constructor(
    maker: SpanMaker,
    private readonly shape: SpanShape,
    name: string,
    kind: SpanKind,
    ids: SpanContext,
    parentSpanContext: SpanContext | undefined,
    /** The starting set (a frozen one is written from its kept bytes). */
    start: Attributes,
    /** A starting attribute after `start`'s (a continued turn's previous response id), when `extraValue` is given. */
    private readonly extraKey: string | undefined,
    private readonly extraValue: AttributeValue | undefined,
    /** The context it was started in (its parent's), where its children find what it does not hold. */
    private readonly under: Context,
    /** Whether the head sampler decided its trace here (the request's span): its children read it from it. */
    private readonly headDecided: boolean,
  ) {
    super(maker, name, kind, ids, parentSpanContext, start, undefined, undefined);
  }

  /** Itself: the span of its scope. */
  get span(): this {
    return this;
  }

  /** Itself: the context its children run in. */
  get context(): this {
    return this;
  }

  getValue(key: symbol): unknown {
    if (key === SPAN_KEY) return this;
    if (key === HEAD_SAMPLED && this.headDecided) return true;
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
    if (field < 0 || (field < this.last && this.fieldValue(field) === undefined)) {
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

  private fieldValue(field: number): AttributeValue | undefined {
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
    if (this.extraValue !== undefined) super.setAttribute(this.extraKey!, this.extraValue);
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldValue(field);
      if (value !== undefined) super.setAttribute(this.shape.keys[field]!, value);
    }
  }

  override get attributes(): Attributes {
    if (this.general) return super.attributes;
    const all: Attributes = { ...this.initial };
    if (this.extraValue !== undefined) all[this.extraKey!] = this.extraValue;
    for (let field = 0; field <= this.last; field++) {
      const value = this.fieldValue(field);
      if (value !== undefined) all[this.shape.keys[field]!] = value;
    }
    return all;
  }

  /**
   * Writes its attributes (Span field 9) from its fields; false once it is the general span (nothing written).
   * The runs of its shape's kept block for its starting set whose values are its own are copied, the rest
   * written (`KeptBlock`); a span that finds no block, or one that missed `KEPT_RETRY` spans in a row, writes
   * all and may keep what it wrote.
   */
  encodeAttributes(out: ProtobufBuffer): boolean {
    if (this.general) return false;
    const kept = this.shape.kept;
    const initial = this.initial;
    let block: KeptBlock | undefined;
    for (const candidate of kept.blocks)
      if (candidate.initial === initial) {
        block = candidate;
        break;
      }
    if (block === undefined || block.misses >= KEPT_RETRY) {
      this.writeKeeping(out, kept, block);
      return true;
    }
    // Items past both its last one set and the block's are unset in both.
    const items = Math.max(this.last + 2, this.extraValue === undefined ? 0 : 1, block.used);
    const { values, ends } = block;
    // Where the run of the block not yet copied begins.
    let from = 0;
    let missed = false;
    for (let item = 0; item < items; item++) {
      const value = this.itemValue(item);
      if (value === values[item] && (item > 0 || value === undefined || this.extraKey === block.extraKey)) continue;
      missed = true;
      copyRun(out, block, from, item);
      this.writeItem(out, item, value);
      from = ends[item + 1]!;
    }
    copyRun(out, block, from, values.length);
    block.misses = missed ? block.misses + 1 : 0;
    return true;
  }

  /** Item by item: the extra starting attribute, then each field. */
  private itemValue(item: number): AttributeValue | undefined {
    return item === 0 ? this.extraValue : this.fieldValue(item - 1);
  }

  private writeItem(out: ProtobufBuffer, item: number, value: AttributeValue | undefined): void {
    if (value === undefined) return;
    writeKeyValue(out, 9, item === 0 ? keyEntry(this.extraKey!) : this.shape.entries[item - 1]!, value);
  }

  /**
   * Writes every item after the starting set; keeps what it wrote as its set's block (in place of `replacing`)
   * when the set is frozen and was met before without one, or its block is to be kept again.
   */
  private writeKeeping(out: ProtobufBuffer, kept: KeptBlocks, replacing: KeptBlock | undefined): void {
    const initial = this.initial;
    const start = out.pos;
    const items = this.shape.keys.length + 1;
    let keep = writeStartingSet(out, initial) && (replacing !== undefined || kept.seen.includes(initial));
    if (!keep) {
      kept.seen[kept.nextSeen] = initial;
      kept.nextSeen = (kept.nextSeen + 1) % kept.seen.length;
    }
    const ends = keep ? [out.pos - start] : undefined;
    const values: unknown[] = [];
    let used = 0;
    for (let item = 0; item < items; item++) {
      const value = this.itemValue(item);
      this.writeItem(out, item, value);
      if (ends === undefined) continue;
      ends.push(out.pos - start);
      values.push(typeof value === 'object' && !Object.isFrozen(value) ? NOT_KEPT : value);
      if (value !== undefined) used = item + 1;
    }
    const length = out.pos - start;
    keep &&= length <= KEPT_BYTES;
    if (!keep) return;
    const block: KeptBlock = {
      initial,
      extraKey: this.extraValue === undefined ? undefined : this.extraKey,
      values,
      used,
      bytes: out.bytes.slice(start, out.pos),
      ends: ends!,
      runs: new Array(items + 1).fill(undefined),
      runStarts: new Array(items + 1).fill(-1),
      misses: 0,
    };
    const blocks = kept.blocks;
    if (replacing !== undefined) blocks[blocks.indexOf(replacing)] = block;
    else if (blocks.length < KEPT_BLOCKS) blocks.push(block);
    else {
      blocks[kept.next] = block;
      kept.next = (kept.next + 1) % KEPT_BLOCKS;
    }
  }
}

/** Copies the run of `block` from `from` to where item `item` begins (`ends[values.length]`: the block's end). */
function copyRun(out: ProtobufBuffer, block: KeptBlock, from: number, item: number): void {
  const at = block.ends[item]!;
  if (at <= from) return;
  let run = block.runs[item];
  if (run === undefined || block.runStarts[item] !== from) {
    run = from === 0 && at === block.bytes.length ? block.bytes : block.bytes.subarray(from, at);
    block.runs[item] = run;
    block.runStarts[item] = from;
  }
  out.append(run);
}
