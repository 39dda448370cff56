// A growing protobuf buffer (the wire format's varints, fixed-width numbers, strings and nested messages)
// for the OTLP encoder beside it (./otlp-protobuf.ts).
import type { HrTime } from '@opentelemetry/api';

const textEncoder = new TextEncoder();
/** A growing protobuf buffer: nested messages reserve one byte for their length and move when it needs more. */
export class ProtobufBuffer {
  bytes: Uint8Array;
  pos = 0;
  /** A view of `bytes` (made again when they grow). */
  view: DataView;

  constructor(size = 4096) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  /** `text` as one length-delimited field (tag, length, UTF-8) in a buffer of its own: kept, and copied where it repeats. */
  static stringField(field: number, text: string): ProtobufBuffer {
    const out = new ProtobufBuffer(text.length * 3 + 8);
    out.tag(field, 2);
    out.string(text);
    // Room past the field: `copy` reads whole words.
    out.reserve(3);
    return out;
  }

  /** Makes room for `more` bytes past `pos` (every write does; a caller writing `bytes` itself too). */
  reserve(more: number): void {
    if (this.pos + more <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.pos + more) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.pos));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** An unsigned varint below 2^32. */
  varint(value: number): void {
    this.reserve(5);
    let rest = value >>> 0;
    while (rest > 0x7f) {
      this.bytes[this.pos++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.pos++] = rest;
  }

  /** An int64 varint of an integral number (negative ones in ten bytes, two's complement). */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) {
      this.varint(value);
      return;
    }
    const magnitude = Math.abs(value);
    let low = magnitude >>> 0;
    let high = Math.floor(magnitude / 0x100000000) >>> 0;
    if (value < 0) {
      low = (~low + 1) >>> 0;
      high = (~high + (low === 0 ? 1 : 0)) >>> 0;
    }
    this.reserve(10);
    while (high > 0 || low > 0x7f) {
      this.bytes[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    this.bytes[this.pos++] = low;
  }

  fixed32(value: number): void {
    this.reserve(4);
    this.view.setUint32(this.pos, value >>> 0, true);
    this.pos += 4;
  }

  double(value: number): void {
    this.reserve(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  /** A time stamp `[seconds, nanoseconds]` as fixed64 nanoseconds, exact past 2^53 (low and high words apart). */
  time([seconds, nanos]: HrTime): void {
    this.nanoseconds(seconds, nanos);
  }

  /**
   * A span's start and end of wall-clock ms since the epoch (fields 7 and 8, the start's tag written before):
   * each as `time` writes it after the `[s, ns]` pair the own tracer would make of it (seconds by `Math.floor`,
   * nanoseconds rounded, at most 999,999,999), without the pair; one room check for both.
   */
  timesMs(startMs: number, endMs: number): void {
    this.reserve(17);
    const at = this.pos;
    this.timesMsAt(at, startMs, endMs);
    this.pos = at + 17;
  }

  /** `timesMs`' 17 bytes at `at`, inside what was written (over the room a template kept for them). */
  timesMsAt(at: number, startMs: number, endMs: number): void {
    const view = this.view;
    if (!msAt(view, at, startMs)) this.msAt(at, startMs);
    this.bytes[at + 8] = 0x41; // 8: end_time_unix_nano, fixed64
    if (!msAt(view, at + 9, endMs)) this.msAt(at + 9, endMs);
  }

  private msAt(at: number, ms: number): void {
    const seconds = Math.floor(ms / 1000);
    this.nanosecondsAt(at, seconds, Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6)));
  }

  private nanoseconds(seconds: number, nanos: number): void {
    this.reserve(8);
    this.nanosecondsAt(this.pos, seconds, nanos);
    this.pos += 8;
  }

  /**
   * `seconds * 1e9 + nanos` as fixed64 at `at`, exact: 1e9 is 1953125 * 2^9, and `seconds * 1953125` stays below 2^53
   * for seconds below 2^32 (the year 2106), so the words come of one product split at bit 23 with `Math.floor`
   * (a float `%` is a call to fmod: ~28 instructions fewer a time stamp, callgrind).
   */
  private nanosecondsAt(at: number, seconds: number, nanos: number): void {
    let lowWord: number;
    let highWord: number;
    if (seconds >= 0 && seconds < 0x100000000) {
      const scaled = seconds * 1953125;
      const high = Math.floor(scaled / 0x800000);
      const low = (scaled - high * 0x800000) * 512 + nanos;
      lowWord = low >>> 0;
      highWord = high + (low >= 0x100000000 ? 1 : 0);
    } else {
      // Seconds split at 2^16 so that every product stays below 2^53.
      const low16 = (seconds & 0xffff) * 1e9;
      const high16 = Math.floor(seconds / 0x10000) * 1e9;
      const low = (low16 % 0x100000000) + (high16 % 0x10000) * 0x10000 + nanos;
      lowWord = low >>> 0;
      highWord = Math.floor(low16 / 0x100000000) + Math.floor(high16 / 0x10000) + Math.floor(low / 0x100000000);
    }
    this.view.setUint32(at, lowWord, true);
    this.view.setUint32(at + 4, highWord >>> 0, true);
  }

  /**
   * A string, length-delimited. ASCII (attribute keys and most values) is copied as it is scanned, through
   * locals (a write through `this.bytes[this.pos++]` costs V8 two field loads and a store each byte); other
   * text is rolled back and encoded as UTF-8.
   */
  string(text: string): void {
    const length = text.length;
    const before = this.pos;
    this.varint(length);
    this.reserve(length);
    const bytes = this.bytes;
    const start = this.pos;
    for (let i = 0; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) {
        this.pos = before;
        this.raw(textEncoder.encode(text));
        return;
      }
      bytes[start + i] = code;
    }
    this.pos = start + length;
  }

  /** Length-delimited bytes. */
  raw(bytes: Uint8Array): void {
    this.varint(bytes.length);
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** `length` (below 128) bytes of `source` from `at` (a trace or span id in its pool), length-delimited. */
  rawId(source: DataView, at: number, length: number): void {
    this.reserve(length + 1);
    this.bytes[this.pos++] = length;
    this.copy(source, at, length);
  }

  /** Bytes given in hex (trace and span ids), length-delimited. */
  hex(text: string): void {
    const length = text.length >>> 1;
    this.varint(length);
    this.reserve(length);
    const bytes = this.bytes;
    const start = this.pos;
    for (let i = 0; i < length; i++)
      bytes[start + i] = HEX_PAIRS[((text.charCodeAt(2 * i) & 0x7f) << 7) | (text.charCodeAt(2 * i + 1) & 0x7f)]!;
    this.pos = start + length;
  }

  /**
   * Opens a nested message under `field` with `width` bytes kept for its length (its likely varint size: a
   * span's is 2 when the last span of its head's was); `close` with what this returns and the same width.
   */
  open(field: number, width = 1): number {
    this.tag(field, 2);
    this.reserve(width);
    const at = this.pos;
    this.pos = at + width;
    return at;
  }

  /** Writes the length of the message opened at `at`, moving its content when the length needs another width; answers the length's size. */
  close(at: number, width = 1): number {
    const length = this.pos - at - width;
    if (width === 1 && length < 0x80) {
      this.bytes[at] = length;
      return 1;
    }
    const size = varintSize(length);
    if (size !== width) {
      if (size > width) this.reserve(size - width);
      this.bytes.copyWithin(at + size, at + width, this.pos);
      this.pos += size - width;
    }
    let rest = length;
    let write = at;
    while (rest > 0x7f) {
      this.bytes[write++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[write] = rest;
    return size;
  }

  /** Bytes already encoded (no length prefix). */
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /**
   * `length` bytes of `from` (a view of encoded bytes or of an id pool) from `at`, no length prefix: four at a
   * time through the views, the last word whole, so up to 3 bytes past `length` are written (then overwritten:
   * `pos` ends at `length`) and read (`from` holds them: key fields are made with 3 bytes of room,
   * ids are 8 or 16 bytes). Callgrind, 16 bytes: ~77 instructions, where a byte loop over typed arrays costs ~420
   * and `set` of a `subarray` ~610; the last word whole, not byte by byte, ~60 fewer a gateway span.
   */
  copy(from: DataView, at: number, length: number): void {
    this.reserve(length + 3);
    const into = this.view;
    const start = this.pos;
    for (let i = 0; i < length; i += 4) into.setUint32(start + i, from.getUint32(at + i, true), true);
    this.pos = start + length;
  }

  /** What was written (a view, not a copy). */
  written(): Uint8Array {
    return this.bytes.subarray(0, this.pos);
  }
}

/**
 * `ms` as `ProtobufBuffer.msAt` writes it, for seconds in [0, 2^32) (its `nanosecondsAt`'s first case), in a
 * function small enough to be inlined into its caller (callgrind: the method, called, ~140 instructions a time
 * stamp with its boxed argument); false, nothing written, otherwise.
 */
function msAt(view: DataView, at: number, ms: number): boolean {
  const seconds = Math.floor(ms / 1000);
  if (!(seconds >= 0 && seconds < 0x100000000)) return false;
  const nanos = Math.min(999_999_999, Math.round((ms - seconds * 1000) * 1e6));
  const scaled = seconds * 1953125;
  const high = Math.floor(scaled / 0x800000);
  const low = (scaled - high * 0x800000) * 512 + nanos;
  view.setUint32(at, low >>> 0, true);
  view.setUint32(at + 4, (high + (low >= 0x100000000 ? 1 : 0)) >>> 0, true);
  return true;
}

/** The bytes of a varint below 2^32. */
export const varintSize = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

/** The byte of two hex digits by their character codes (7 bits each): one lookup a byte of an id. */
const HEX_PAIRS = (() => {
  const table = new Uint8Array(1 << 14);
  const digits = '0123456789abcdefABCDEF';
  const value = (digit: string) => Number.parseInt(digit, 16);
  for (const high of digits)
    for (const low of digits) table[(high.charCodeAt(0) << 7) | low.charCodeAt(0)] = (value(high) << 4) | value(low);
  return table;
})();
