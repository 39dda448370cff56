// The check behind the server's serializers writing a text as it is (src/json-text.ts, `writtenAsIs`),
// differential against `JSON.stringify`: long texts, where the WebAssembly check runs, with the characters
// JSON escapes (and those it does not) anywhere, across its sixteen-byte lanes and its 32 KiB chunks; and a
// stored turn's input of long messages in a client's key order, whose pieces join to `JSON.stringify`'s text.
import type { ItemField } from '@openresponses/types';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { itemsJsonPieces } from '../src/input-json.js';
import { writtenAsIs } from '../src/json-text.js';

/** `JSON.stringify` writes the text as it is; a surrogate, even paired, is left to it (NEEDS_ESCAPE's rule). */
const asIs = (text: string) => JSON.stringify(text) === `"${text}"` && !/[\ud800-\udfff]/.test(text);

/** Code units JSON escapes, some it does not, and surrogates paired and lone. */
const hostile = fc.constantFrom(
  '"',
  '\\',
  '\n',
  '\t',
  '\r',
  '\u0000',
  '\u0008',
  '\u001f',
  '\u007f',
  ' ',
  '\u00a0',
  'é',
  '\u00ff',
  '\u2028',
  '\u3000',
  '😀',
  '\ud800',
  '\udfff',
  '/',
);

/** Mostly ASCII words, 64 to ~70,000 characters, with a few hostile units at any place (lane and chunk edges likely). */
const longText = fc
  .tuple(
    fc.integer({ min: 64, max: 70_000 }),
    fc.array(
      fc.tuple(fc.oneof(fc.nat(), fc.constantFrom(15, 16, 31, 32_767, 32_768, 32_769, 65_535, 65_536)), hostile),
      { maxLength: 3 },
    ),
  )
  .map(([length, inserts]) => {
    let text = 'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(length / 44)).slice(0, length);
    for (const [at, unit] of inserts) {
      const place = at % text.length;
      text = text.slice(0, place) + unit + text.slice(place + unit.length);
    }
    return text;
  });

describe('writtenAsIs', () => {
  test('answers as JSON.stringify writes the text, for long texts with any unit anywhere', () => {
    fc.assert(
      fc.property(longText, (text) => {
        expect(writtenAsIs(text)).toBe(asIs(text));
      }),
      { numRuns: 400 },
    );
  });

  test('the cases by name', () => {
    const plain = (length: number) => 'a'.repeat(length);
    const at = (length: number, place: number, unit: string) =>
      plain(length).slice(0, place) + unit + plain(length).slice(place + unit.length);
    const cases = [
      '',
      plain(63),
      plain(64),
      plain(65),
      plain(32_768),
      plain(100_000),
      at(64, 63, '"'),
      at(80, 79, '\\'),
      at(65, 64, '\u0001'),
      at(100, 15, '\u001f'),
      at(100, 16, '\u0020'),
      at(100, 50, '\u007f'),
      at(100, 50, 'é'),
      at(100, 50, '😀'),
      at(100, 50, '\ud800'),
      at(100, 99, '\udc00'),
      at(100, 50, '\u2028'),
      at(40_000, 32_767, '"'),
      at(40_000, 32_768, '\n'),
      at(40_000, 39_999, '\\'),
      at(70_000, 32_767, '😀'),
      at(70_000, 32_766, '😀'),
      ...Array.from({ length: 32 }, (_, code) => at(200, 100, String.fromCharCode(code))),
    ];
    for (const text of cases) expect(writtenAsIs(text), JSON.stringify(text.slice(0, 80))).toBe(asIs(text));
  });
});

test('a long input of messages in a client’s key order, with hostile texts, and other items among them joins to JSON.stringify’s text', () => {
  const message = fc
    .tuple(fc.boolean(), longText, fc.boolean())
    .map(([user, text, asString]) =>
      user
        ? { type: 'message', role: 'user', content: asString ? text : [{ type: 'input_text', text }], id: 'msg_1' }
        : { role: 'assistant', type: 'message', content: [{ text, type: 'output_text', annotations: [] }] },
    );
  // Another item among them: its group goes to JSON.stringify, between groups of messages written here.
  const call = longText.map((text) => ({ type: 'function_call', call_id: 'call_1', name: 'f', arguments: text }));
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 4, arbitrary: message }, call), { minLength: 1, maxLength: 40 }),
      (items) => {
        expect(itemsJsonPieces(items as unknown as ItemField[]).join('')).toBe(JSON.stringify(items));
      },
    ),
    { numRuns: 60 },
  );
});
