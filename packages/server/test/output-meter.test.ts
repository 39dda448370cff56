// The turn's one output meter (responses/turn/output-budget.ts), as a property: for any sequence of parts a
// provider yields (any family, well-formed or not: text, refusals, reasoning with opaque state of any size,
// tool calls, blocks never ended, empty deltas), the bytes a streaming client receives are at most
// clientBytesBound(maxOutputBytes) = 16 x the budget + 64 KiB. The server is the real one over HTTP; only
// the provider is scripted.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ModelPart, ModelProvider } from '../src/models/provider.js';
import type { RunningServer } from '../src/node/index.js';
import { jsonBytes, MIN_PART_BYTES, outputBytesOf } from '../src/responses/turn/output-budget.js';
import { clientBytesBound } from '../src/testing/index.js';
import { utf8Length } from '../src/limits.js';
import { post, startTestServer } from './harness.js';

const BUDGET = 4 * 1024;

/** The parts the next turn yields (set by each run of the property). */
let script: ModelPart[] = [];
const provider: ModelProvider = {
  name: 'metered',
  contextWindow: 100_000,
  supports: (model) => model === 'metered',
  async *generate() {
    yield* script;
  },
};

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ providers: [provider], limits: { maxOutputBytes: BUDGET } });
});
afterAll(() => server?.close());

const text = fc.oneof(
  fc.constant(''),
  fc.constant(''),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 1200 }),
);
/** One item's parts: started, some deltas, ended or left open (its reasoning with opaque state of any size). */
const item = fc.record({
  kind: fc.constantFrom('text', 'refusal', 'reasoning', 'function-call'),
  deltas: fc.array(text, { maxLength: 300, size: 'max' }),
  ended: fc.boolean(),
  state: fc.oneof(fc.string({ maxLength: 100 }), fc.string({ minLength: 5000, maxLength: 20_000 })),
  callId: fc.string({ maxLength: 200 }),
});
const parts: fc.Arbitrary<ModelPart[]> = fc.array(item, { maxLength: 12, size: 'max' }).map((items) =>
  items.flatMap(({ kind, deltas, ended, state, callId }, index) => {
    const id = String(index);
    const start = (
      kind === 'function-call'
        ? { type: 'function-call-start', id, name: 'f', callId: `call_${callId}` }
        : { type: `${kind}-start`, id }
    ) as ModelPart;
    const end = (
      kind === 'reasoning'
        ? { type: 'reasoning-end', id, state: { kind: 'opaque', signature: state } }
        : { type: `${kind}-end`, id }
    ) as ModelPart;
    return [
      start,
      ...deltas.map((delta) => ({ type: `${kind}-delta`, id, delta }) as ModelPart),
      ...(ended ? [end] : []),
    ];
  }),
);
const finish: ModelPart = { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };

test('every part costs at least MIN_PART_BYTES, and a reasoning state counts whole', () => {
  expect(outputBytesOf({ type: 'text-delta', id: 'a', delta: '' })).toBe(MIN_PART_BYTES);
  const state = { kind: 'opaque', signature: 'x'.repeat(100_000) };
  expect(outputBytesOf({ type: 'reasoning-end', id: 'a', state })).toBeGreaterThan(100_000);
  expect(outputBytesOf({ type: 'reasoning-end', id: 'a' })).toBeLessThan(100);
});

test('jsonBytes is the UTF-8 length of JSON.stringify for any value (the meter counts parts without their text)', () => {
  const exact = (value: unknown) => new TextEncoder().encode(JSON.stringify(value) ?? '').length;
  const anything = fc.anything({
    withNullPrototype: true,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    withObjectString: true,
    withUnicodeString: true,
  });
  fc.assert(
    fc.property(fc.oneof(anything, fc.jsonValue(), fc.dictionary(fc.string({ unit: 'binary' }), anything)), (value) => {
      expect(jsonBytes(value)).toBe(exact(value));
    }),
    { numRuns: 3000 },
  );
  for (const value of [
    -0,
    1e21,
    2 ** 53,
    -(2 ** 53) + 1,
    0.1,
    Number.NaN,
    -Infinity,
    '\u2028',
    '\ud800x',
    'é€𝄞',
    [undefined, () => 1],
  ])
    expect(jsonBytes({ value })).toBe(exact({ value }));
});

test('utf8Length is the UTF-8 length of any well-formed text, on both sides of its ASCII fast path', () => {
  const exact = (text: string) => new TextEncoder().encode(text).length;
  const ascii = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) });
  const anyText = fc.string({ unit: 'binary' });
  // Lengths around 32 and 4,096 units (where the fast path starts and ends), ASCII with a non-ASCII unit anywhere.
  const lengths = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 4090, max: 4100 }));
  const mixed = fc
    .tuple(lengths, fc.nat(), fc.constantFrom('é', '€', '𝄞', '\u007f', '\u0080'))
    .map(([length, at, unit]) => {
      const text = 'a'.repeat(length);
      const index = length === 0 ? 0 : at % length;
      return text.slice(0, index) + unit + text.slice(index);
    });
  fc.assert(
    fc.property(
      fc.oneof(
        ascii,
        anyText,
        mixed,
        lengths.map((length) => 'x'.repeat(length)),
      ),
      (text) => {
        expect(utf8Length(text)).toBe(exact(text));
      },
    ),
    { numRuns: 2000 },
  );
  // A lone surrogate counts as its two bytes of old, whichever path (TextEncoder would write U+FFFD's three).
  expect(utf8Length(`${'a'.repeat(40)}\ud800`)).toBe(42);
  expect(utf8Length('\ud800')).toBe(2);
});

test('for any parts, a streaming client receives at most clientBytesBound(maxOutputBytes)', async () => {
  let largest = 0;
  await fc.assert(
    fc.asyncProperty(parts, fc.boolean(), async (yielded, sealed) => {
      script = [...yielded, finish];
      const response = await post(server, '/v1/responses', {
        model: 'metered',
        input: 'hi',
        stream: true,
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }],
        include: sealed ? ['reasoning.encrypted_content'] : [],
      });
      const bytes = (await response.arrayBuffer()).byteLength;
      largest = Math.max(largest, bytes);
      expect(bytes).toBeLessThanOrEqual(clientBytesBound(BUDGET));
    }),
    { numRuns: 60 },
  );
  // The property saw turns near the budget, not only short ones.
  expect(largest).toBeGreaterThan(4 * BUDGET);
});
