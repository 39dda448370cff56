// Non-streaming turns hand each text to the writer whole instead of word by word; the response must be
// the same either way, including where max_output_tokens cuts it off. Token counting is checked too.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { createRunner } from '../src/service/service.js';
import { contextTokens, countTokens, itemText } from '../src/index.js';
import { itemTokens } from '../src/models/item-text.js';

const service = createRunner({});
const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The parts of a response that do not depend on random ids or the clock. */
function comparable(response: Record<string, unknown>) {
  const output = (response.output as Array<Record<string, unknown>>).map(
    ({ id: _id, call_id: _call, encrypted_content: _sealed, ...rest }) => rest,
  );
  return {
    status: response.status,
    usage: response.usage,
    incomplete_details: response.incomplete_details,
    error: response.error,
    output,
  };
}

describe('whole deltas (non-streaming) and word-by-word deltas (streaming)', () => {
  const requests: Array<Record<string, unknown>> = [
    { input: 'Hello! My name is Ada. What can you do?' },
    { input: '  leading spaces, trailing spaces and\ttabs\n  ' },
    { input: 'Tell me a long story [long]', max_output_tokens: 37 },
    { input: 'Tell me a long story [long]', max_output_tokens: 200 },
    { input: 'Think first [think]', max_output_tokens: 16 },
    { input: 'Think first [think]', max_output_tokens: 30 },
    { input: 'Think first [think]' },
    { input: 'What is the weather in Paris?', tools: [weather] },
    { input: 'Please answer at length, then check the weather in Paris?', tools: [weather], max_output_tokens: 16 },
    { input: 'Please [refuse]' },
  ];
  for (const body of requests) {
    test(JSON.stringify(body).slice(0, 80), async () => {
      const raw = { model: 'openresponses-deterministic', ...body };
      const events: string[] = [];
      const wordByWord = await service.turn(raw, {
        version: '2026-04-24',
        owner: 'open',
        onEvent: (event) => events.push(event.type),
      });
      const whole = await service.turn(raw, { version: '2026-04-24', owner: 'open' });
      expect(comparable(whole.response as never)).toEqual(comparable(wordByWord.response as never));
      // The streaming turn really did stream word by word (so the comparison compares two paths).
      if (
        wordByWord.response.status === 'completed' &&
        JSON.stringify(wordByWord.response.output).includes('output_text')
      ) {
        expect(events.filter((type) => type === 'response.output_text.delta').length).toBeGreaterThan(1);
      }
    });
  }
});

describe('countTokens', () => {
  const regexCount = (text: string) => (text.match(/\S+/g) ?? []).length;
  test('counts what /\\S+/g matches, for every kind of whitespace', () => {
    const spaces = [
      ' ',
      '\t',
      '\n',
      '\v',
      '\f',
      '\r',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u200a',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
      '\u200b',
      '\u0085',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...spaces, 'a', 'é', '日', '😀', '-', '.'), { maxLength: 40 }), (chars) => {
        const text = chars.join('');
        expect(countTokens(text)).toBe(regexCount(text));
      }),
      { numRuns: 500, seed: 7 },
    );
  });
  test('agrees with /\\s/ on every UTF-16 code unit, alone, between words and in runs', () => {
    const disagreements: Array<{ code: number; text: string; counted: number; matched: number }> = [];
    for (let code = 0; code < 0x10000; code++) {
      const char = String.fromCharCode(code);
      for (const text of [char, `a${char}b`, `${char}${char}x${char}`]) {
        const counted = countTokens(text);
        const matched = regexCount(text);
        if (counted !== matched) disagreements.push({ code, text, counted, matched });
      }
    }
    expect(disagreements).toEqual([]);
  });
  test('counts long text (ASCII sixteen bytes at a time, chunk by chunk) as /\\S+/g does, wherever the words and a non-ASCII character fall', () => {
    // Lengths around the 64-unit threshold, 16-byte groups, the 255-group sums and the 32 Ki chunks; every ASCII control.
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
    const piece = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('a', 'word', ' ', '  ', '\t', '\n', '\r\n', '\v', '\f') },
      { weight: 2, arbitrary: fc.constantFrom(...ascii) },
      { weight: 1, arbitrary: fc.constantFrom('é', '日', '\u00a0', '\u3000', '😀', '\ud800') },
    );
    const length = fc.constantFrom(
      ...[63, 64, 65, 67, 79, 80, 81, 1_019, 1_020, 1_021, 4_079, 4_080, 4_081, 16_385],
      ...[32_767, 32_768, 32_769, 65_535, 65_536, 65_537, 100_000],
    );
    fc.assert(
      fc.property(
        length,
        fc.array(piece, { minLength: 1, maxLength: 24 }),
        fc.nat(),
        fc.boolean(),
        (size, pieces, seed, asciiOnly) => {
          const usable = asciiOnly ? pieces.filter((p) => /^[\x00-\x7f]+$/.test(p)) : pieces;
          if (usable.length === 0) usable.push('a b');
          let text = '';
          for (let i = seed; text.length < size; i = (i * 1_103_515_245 + 12_345) >>> 0)
            text += usable[i % usable.length];
          text = text.slice(0, size);
          expect(countTokens(text)).toBe(regexCount(text));
        },
      ),
      { numRuns: 300, seed: 13 },
    );
    // ASCII chunks before a chunk that is not: the count goes on from that chunk, word state carried.
    const words = 'lorem ipsum  dolor\tsit amet\n'.repeat(3_000);
    for (const at of [255, 1_020, 4_080, 16_384, 32_767, 32_768, 32_769, 40_000, 65_536])
      for (const char of ['é', '\u00a0', ' ', '😀'])
        for (const text of [words.slice(0, at) + char + words.slice(at), `${words.slice(0, at - 1)} x${char}y`]) {
          expect(countTokens(text)).toBe(regexCount(text));
        }
  });
});

describe('itemTokens', () => {
  test("is countTokens of the item's text, for every item shape, without joining it", () => {
    const text = fc
      .array(fc.constantFrom(' ', '\n', '\u00a0', 'a', 'bc', '日'), { maxLength: 12 })
      .map((c) => c.join(''));
    const part = fc.oneof(
      fc.record({ type: fc.constant('input_text'), text }),
      fc.record({ type: fc.constant('refusal'), refusal: text }),
      fc.record({ type: fc.constant('input_image'), image_url: fc.constant('https://example.com/a.png') }),
    );
    const item = fc.oneof(
      fc.record({ type: fc.constant('message'), role: fc.constant('user'), content: fc.array(part, { maxLength: 4 }) }),
      fc.record({ type: fc.constant('function_call'), call_id: fc.constant('c'), name: text, arguments: text }),
      fc.record({ type: fc.constant('function_call_output'), call_id: fc.constant('c'), output: text }),
      fc.record({
        type: fc.constant('reasoning'),
        summary: fc.array(fc.record({ type: fc.constant('summary_text'), text }), { maxLength: 3 }),
      }),
      fc.record({ type: fc.constant('item_reference'), id: fc.constant('msg_1') }),
    );
    fc.assert(
      fc.property(item, (value) => {
        const field = value as unknown as Parameters<typeof itemTokens>[0];
        expect(itemTokens(field)).toBe(countTokens(itemText(field)));
      }),
      { numRuns: 500, seed: 11 },
    );
  });
});

describe('contextTokens', () => {
  test("is the turn's count when it has one, else the words of the instructions and every item", () => {
    const items = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'two words' }] },
      { type: 'function_call_output', call_id: 'c', output: 'three more words' },
    ] as unknown as Parameters<typeof contextTokens>[0]['items'];
    expect(contextTokens({ items, instructions: 'Be brief.' })).toBe(7);
    expect(contextTokens({ items, instructions: null })).toBe(5);
    expect(contextTokens({ items, instructions: null, inputTokens: 42 })).toBe(42);
  });
  test('is the sum of countTokens over the texts, for contexts past a chunk of mixed, long and non-ASCII texts', () => {
    const regexCount = (text: string) => (text.match(/\S+/g) ?? []).length;
    const words = 'lorem ipsum  dolor\tsit amet\n'.repeat(2_500);
    const text = fc.oneof(
      fc.constantFrom('', ' ', 'a', 'one two', ' lead', 'trail ', '日本 語', '\u00a0x\u3000y'),
      fc.tuple(fc.nat(70_000), fc.nat(70_000)).map(([from, to]) => words.slice(from, to)),
      fc
        .tuple(fc.nat(3_000), fc.constantFrom('é', '\u2003', '😀'))
        .map(([at, char]) => `${words.slice(0, at)}${char}x y`),
    );
    const item = fc.tuple(text, fc.boolean()).map(([value, message]) =>
      message
        ? {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: value },
              { type: 'input_text', text: value },
            ],
          }
        : { type: 'function_call_output', call_id: 'c', output: value },
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 40 }), text, (list, instructions) => {
        const items = list as unknown as Parameters<typeof contextTokens>[0]['items'];
        const texts = [
          instructions,
          ...list.flatMap((i) => ('output' in i ? [i.output] : i.content.map((p) => p.text))),
        ];
        expect(contextTokens({ items, instructions })).toBe(texts.reduce((n, t) => n + regexCount(t ?? ''), 0));
      }),
      { numRuns: 300, seed: 17 },
    );
  });
});
