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
