// Attributes in OTLP protobuf (common.proto's KeyValue and AnyValue) for the span encoder beside it
// (./otlp-protobuf.ts): keys encoded once, a key's value written again from its kept bytes when it is the same
// as last time, short strings and small integers in one pass, frozen starting sets encoded once.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { ProtobufBuffer, varintSize } from './protobuf-buffer.js';

const INT64_MIN = -(2 ** 63);
const INT64_MAX = 2 ** 63;
/**
 * A key's KeyValue field (tag 1, length, bytes) and the last primitive (or frozen list) written under it, with the
 * KeyValue's content (key and value fields, under 128 bytes) once that value came twice in a row: a server
 * sets a few dozen keys again and again, most to the values they had (a route, a model, a status).
 */
export interface KeyEntry {
  readonly key: DataView;
  readonly keyLength: number;
  value: unknown;
  pair: Uint8Array | undefined;
  /** Writes in a row whose value was not the last one; from VARYING on, the value is not compared (see there). */
  changes: number;
}
const keyEntries = new Map<string, KeyEntry>();
const KEY_FIELDS_MAX = 1024;
export function keyEntry(key: string): KeyEntry {
  let entry = keyEntries.get(key);
  if (entry === undefined) {
    const field = ProtobufBuffer.stringField(1, key);
    entry = { key: field.view, keyLength: field.pos, value: undefined, pair: undefined, changes: 0 };
    if (keyEntries.size < KEY_FIELDS_MAX) keyEntries.set(key, entry);
  }
  return entry;
}

// An object's own keys: for-in with Object.hasOwn measured as fast as an Object.keys loop (~2.4k instructions
// for 12 keys, callgrind), for-in alone 0.8k; the own tracer's spans keep their later attributes in arrays.
export function writeAttributes(out: ProtobufBuffer, field: number, attributes: Attributes): void {
  for (const key in attributes) if (Object.hasOwn(attributes, key)) writeAttribute(out, field, key, attributes[key]);
}

/** Characters of a string value written by `writePair`'s one pass at most (every length then fits one byte). */
const SHORT_TEXT = 96;
/**
 * Characters from which `writePair` has one native call write a string (`bufferUtf8Write`, else
 * `TextEncoder.encodeInto`) rather than its loop: the loop costs ~50 instructions a character on a concatenated
 * string (a response id, `resp_` and its hex), the call a few hundred once (callgrind, 100,000 calls: 37
 * characters ~520 instructions fewer, 21 characters ~150 more).
 */
const LONG_TEXT = 32;
const utf8 = new TextEncoder();
type Utf8Write = (this: Uint8Array, text: string, at: number, room: number) => number;
/**
 * Node's UTF-8 writer of `Buffer` (what `buf.write` calls), which writes into any Uint8Array and answers the bytes
 * written: one native call, where `encodeInto` needs a `subarray` and makes a result object (callgrind, a traced
 * gateway turn's response id: `writePair` 2.0k instructions a turn that way, 1.4k this way). Only where it writes
 * a probe as UTF-8 is written; `encodeInto` elsewhere.
 */
const bufferUtf8Write = ((): Utf8Write | undefined => {
  const write = (globalThis as { Buffer?: { prototype?: { utf8Write?: unknown } } }).Buffer?.prototype?.utf8Write;
  if (typeof write !== 'function') return undefined;
  const probe = new Uint8Array(8);
  try {
    if ((write as Utf8Write).call(probe, 'a\u00e9', 1, 6) !== 3) return undefined;
  } catch {
    return undefined;
  }
  return probe[1] === 0x61 && probe[2] === 0xc3 && probe[3] === 0xa9 ? (write as Utf8Write) : undefined;
})();

/**
 * A key whose value changed VARYING writes in a row (a turn's response id, new each turn) is not compared with its
 * last value for the next RECHECK writes, then compared again: two ids made by concatenation compare in a runtime
 * call (callgrind, a traced gateway turn: the response id's two comparisons ~0.7k instructions).
 */
const VARYING = 8;
const RECHECK = 248;

/** One KeyValue under `field`: its content as last written when the key's value is the same again (`KeyEntry`). */
export function writeAttribute(
  out: ProtobufBuffer,
  field: number,
  key: string,
  value: AttributeValue | undefined,
): void {
  writeKeyValue(out, field, keyEntry(key), value);
}

/**
 * `text` at `at` of `out`'s bytes, as UTF-8 in `text.length` bytes, when every character is ASCII; false
 * otherwise (then the bytes from `at` on are overwritten, up to 3 a character). `writePair`'s way: a long string
 * by one native call (a response id is a concatenated string, ~50 instructions a character through `charCodeAt`).
 */
export function writeAsciiAt(out: ProtobufBuffer, at: number, text: string): boolean {
  const length = text.length;
  if (length >= LONG_TEXT && bufferUtf8Write !== undefined) {
    out.reserve(at + 3 * length - out.pos);
    return bufferUtf8Write.call(out.bytes, text, at, 3 * length) === length;
  }
  const bytes = out.bytes;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return false;
    bytes[at + i] = code;
  }
  return true;
}

/** One KeyValue under `field` of the key of `entry` (`keyEntry`), as `writeAttribute` writes it. */
export function writeKeyValue(
  out: ProtobufBuffer,
  field: number,
  entry: KeyEntry,
  value: AttributeValue | undefined,
): void {
  const pair = entry.pair;
  // The kept content first: a key with none (its value changes) then costs no comparison of its value here.
  if (pair !== undefined && value === entry.value) {
    // Its tag and length, then the kept content by one `set` (20-40 bytes: fewer instructions than `copy`'s views).
    const length = pair.length;
    out.reserve(length + 2);
    const p = out.pos;
    out.bytes[p] = (field << 3) | 2;
    out.bytes[p + 1] = length;
    out.bytes.set(pair, p + 2);
    out.pos = p + 2 + length;
    return;
  }
  const start = out.pos;
  writePair(out, field, entry, value);
  // A frozen list (the server's finish reasons, each made once) is one value by identity, as a primitive is.
  if (value == null || (typeof value === 'object' && !Object.isFrozen(value))) return;
  const changes = entry.changes;
  if (changes >= VARYING) {
    entry.changes = changes === VARYING + RECHECK ? 0 : changes + 1;
    return;
  }
  if (value !== entry.value) {
    entry.value = value;
    entry.pair = undefined;
    entry.changes = changes + 1;
    return;
  }
  entry.changes = 0;
  // The same value twice in a row: its content kept (tag 1 byte, length 1 byte when under 128).
  const length = out.pos - start - 2;
  if (length < 0x80 && out.bytes[start + 1] === length) {
    entry.pair = out.bytes.slice(start + 2, out.pos);
  }
}

/**
 * One KeyValue under `field`. A string of up to SHORT_TEXT ASCII characters, a boolean or an integer in
 * [0, 2^31) with a key field of up to 24 bytes (every attribute the server sets after a start) is written in
 * one pass, its lengths known before its bytes; anything else through `writeValue`.
 */
function writePair(out: ProtobufBuffer, field: number, entry: KeyEntry, value: AttributeValue | undefined): void {
  const keyLength = entry.keyLength;
  if (keyLength <= 24) {
    if (typeof value === 'string' && value.length <= SHORT_TEXT) {
      const length = value.length;
      // A long string written by `bufferUtf8Write` has room for all of it (3 bytes a UTF-16 unit at most).
      out.reserve(keyLength + (length >= LONG_TEXT && bufferUtf8Write !== undefined ? 3 * length : length) + 6);
      const start = out.pos;
      out.pos = start + 2;
      out.copy(entry.key, 0, keyLength);
      const bytes = out.bytes;
      const p = out.pos + 4;
      let ascii = true;
      if (length >= LONG_TEXT) {
        // Written whole, `length` bytes only when every character is ASCII (any other takes two bytes or more);
        // by `encodeInto` into exactly `length` bytes, all of it read only then.
        if (bufferUtf8Write !== undefined) ascii = bufferUtf8Write.call(bytes, value, p, 3 * length) === length;
        else ascii = utf8.encodeInto(value, bytes.subarray(p, p + length)).read === length;
      } else
        for (let i = 0; i < length; i++) {
          const code = value.charCodeAt(i);
          if (code > 0x7f) {
            ascii = false;
            break;
          }
          bytes[p + i] = code;
        }
      if (ascii) {
        // KeyValue { key = 1; value = 2 { string_value = 1 } }: lengths below 128 (24 + 96 + 6).
        bytes[start] = (field << 3) | 2;
        bytes[start + 1] = keyLength + length + 4;
        bytes[p - 4] = 0x12;
        bytes[p - 3] = length + 2;
        bytes[p - 2] = 0x0a;
        bytes[p - 1] = length;
        out.pos = p + length;
        return;
      }
      out.pos = start;
    } else if (
      typeof value === 'boolean' ||
      (typeof value === 'number' && value >= 0 && value < 0x80000000 && Number.isInteger(value))
    ) {
      const number = typeof value === 'boolean' ? (value ? 1 : 0) : value;
      const size = varintSize(number);
      out.reserve(keyLength + size + 6);
      const start = out.pos;
      out.bytes[start] = (field << 3) | 2;
      out.bytes[start + 1] = keyLength + size + 3;
      out.pos = start + 2;
      out.copy(entry.key, 0, keyLength);
      const bytes = out.bytes;
      let p = out.pos;
      bytes[p] = 0x12;
      bytes[p + 1] = size + 1;
      // bool_value = 2, int_value = 3 (varints).
      bytes[p + 2] = typeof value === 'boolean' ? 0x10 : 0x18;
      p += 3;
      let rest = number;
      while (rest > 0x7f) {
        bytes[p++] = (rest & 0x7f) | 0x80;
        rest >>>= 7;
      }
      bytes[p++] = rest;
      out.pos = p;
      return;
    }
  }
  const pair = out.open(field);
  out.copy(entry.key, 0, keyLength);
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
// The sets met last and their bytes, looked up by identity before the WeakMap (a turn's spans start with a
// handful of sets, the same every turn): a slot per set, chosen by a counter, overwritten in turn.
const RECENT_SETS = 8;
const recentSets: Array<Attributes | undefined> = new Array(RECENT_SETS).fill(undefined);
const recentBytes: Array<Uint8Array | undefined> = new Array(RECENT_SETS).fill(undefined);
let recentNext = 0;
/** The encoded attributes of a frozen starting set, or undefined when `initial` is not frozen. */
function frozenSetBytes(initial: Attributes): Uint8Array | undefined {
  for (let i = 0; i < RECENT_SETS; i++) if (recentSets[i] === initial) return recentBytes[i];
  if (!Object.isFrozen(initial)) return undefined;
  let bytes = frozenSets.get(initial);
  if (bytes === undefined) {
    const scratch = new ProtobufBuffer(256);
    writeAttributes(scratch, 9, initial);
    bytes = scratch.written().slice();
    frozenSets.set(initial, bytes);
  }
  recentSets[recentNext] = initial;
  recentBytes[recentNext] = bytes;
  recentNext = (recentNext + 1) % RECENT_SETS;
  return bytes;
}

/**
 * Writes a span's starting attributes (Span field 9): a frozen set's kept bytes, else key by key. True when the
 * kept bytes were written (a block the encoder may keep, they are the same span after span).
 */
export function writeStartingSet(out: ProtobufBuffer, initial: Attributes): boolean {
  const bytes = frozenSetBytes(initial);
  // Copied by `set` (tens to hundreds of bytes: ~5 instructions a byte through the views, `copy`).
  if (bytes === undefined) {
    writeAttributes(out, 9, initial);
    return false;
  }
  out.append(bytes);
  return true;
}
