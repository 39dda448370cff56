import { utf8Length } from '../../limits.js';
import type { ModelPart } from '../../models/provider.js';

/** What an item or content part adds beyond what it carries (ids, type, status, empty arrays): counted so endless empty items end too. */
const ITEM_BYTES = 128;

/**
 * The least any part costs, whatever it carries (an empty delta too): each part becomes at least one event
 * whose envelope is 100 to 200 bytes, so bounding the bytes bounds the events. Far below a real token's cost
 * in events: a 4 MiB budget still allows 262,144 deltas.
 */
export const MIN_PART_BYTES = 16;

/**
 * The bytes a part adds to the response (and to every event stream of it), for `maxOutputBytes`: the one
 * meter of the turn, the same for every provider family. The deltas, whose shape is fixed, are counted by
 * their text and logprobs; every other part is counted whole, whatever it carries (names, call ids,
 * annotations, whole items, vendor events, a reasoning item's opaque `state` such as a thinking signature or
 * redacted data), so no field a family fills can escape the budget. The sealed copy of a reasoning item
 * (`encrypted_content`) is charged by the turn where it is made.
 */
export function outputBytesOf(part: ModelPart): number {
  switch (part.type) {
    case 'text-delta':
      return Math.max(
        MIN_PART_BYTES,
        utf8Length(part.delta) + (part.logprobs ? utf8Length(JSON.stringify(part.logprobs)) : 0),
      );
    case 'refusal-delta':
    case 'reasoning-delta':
    case 'reasoning-summary-delta':
    case 'function-call-delta':
      return Math.max(MIN_PART_BYTES, utf8Length(part.delta));
    // Named here so that the commonest parts skip the suffix test below (`endsWith` cost as much as their count).
    case 'text-start':
    case 'message-part-start':
    case 'refusal-start':
    case 'reasoning-start':
    case 'reasoning-summary-start':
    case 'function-call-start':
    case 'item':
      return jsonBytes(part) + ITEM_BYTES;
    case 'text-end':
    case 'finish':
      return jsonBytes(part);
    default:
      return jsonBytes(part) + ((part as { type: string }).type.endsWith('-start') ? ITEM_BYTES : 0);
  }
}

/**
 * `utf8Length(JSON.stringify(value))` without making the text for plain data (plain objects and arrays,
 * strings that need no escape, safe integers, booleans, null): JSON.stringify of a part cost ~0.5 µs, a
 * few of them a turn. Anything else (escapes, other numbers, `toJSON`, class instances) is measured by
 * JSON.stringify itself; test/output-meter.test.ts holds the two equal on arbitrary values.
 */
export function jsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return Number.isSafeInteger(value) ? integerDigits(value) : utf8Length(JSON.stringify(value));
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let bytes = value.length === 0 ? 2 : value.length + 1;
        for (const item of value)
          bytes += item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 4 : jsonBytes(item);
        return bytes;
      }
      const prototype = Object.getPrototypeOf(value);
      if (
        (prototype !== Object.prototype && prototype !== null) ||
        typeof (value as { toJSON?: unknown }).toJSON === 'function'
      )
        return utf8Length(JSON.stringify(value));
      let bytes = 1;
      for (const key in value) {
        const field = (value as Record<string, unknown>)[key];
        if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
        bytes += keyBytes(key) + 2 + jsonBytes(field);
      }
      return bytes === 1 ? 2 : bytes;
    }
    default:
      return utf8Length(JSON.stringify(value) ?? '');
  }
}

/**
 * A key's `stringBytes`, remembered: a part's keys are a few names repeated every turn, and counting their
 * characters one by one was most of the meter's cost (a JSON turn's three parts: ~6.9k instructions, ~4.1k of
 * them the character loops). Only short keys, and only the first KEY_CACHE_SIZE, so that a provider naming
 * fields freely cannot make it grow: past that they are counted as before.
 */
function keyBytes(key: string): number {
  let bytes = KEY_BYTES.get(key);
  if (bytes === undefined) {
    bytes = stringBytes(key);
    if (key.length <= 64 && KEY_BYTES.size < KEY_CACHE_SIZE) KEY_BYTES.set(key, bytes);
  }
  return bytes;
}
const KEY_BYTES = new Map<string, number>();
const KEY_CACHE_SIZE = 512;

/** A JSON string's bytes with its quotes; one that needs escapes (or holds surrogates) is measured by JSON.stringify. */
function stringBytes(text: string): number {
  let bytes = text.length + 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff))
      return utf8Length(JSON.stringify(text));
    if (code >= 0x80) bytes += code >= 0x800 ? 2 : 1;
  }
  return bytes;
}

/** The digits of a safe integer as JSON writes it (`-0` is `0`). */
function integerDigits(value: number): number {
  let digits = value < 0 ? 2 : 1;
  for (let rest = Math.abs(value); rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}
