// The turn's serializer of its own responses and input items (src/response-json.ts), differential: for random
// responses and items in the server's shapes, and for the same with a key added, dropped, moved or left
// undefined, a `toJSON`, a class instance, a non-finite number or any value at all in any field, its text is
// byte-equal to JSON.stringify's (strings with every escape class: quotes, backslashes, control characters,
// lone and paired surrogates, U+2028/2029, non-ASCII). And the responses the server makes take the fast path.
import { startingResponse } from '@openresponses/events';
import type { ItemField, ResponseResource } from '@openresponses/types';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { DeterministicModel, InMemoryResponseStore } from '../src/index.js';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { itemsJsonPieces } from '../src/input-json.js';
import { responseJson } from '../src/response-json.js';
import { createTurnRunner } from '../src/responses/runner.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import { post, startTestServer } from './harness.js';

/** Any UTF-16 code unit, lone surrogates included, with the characters JSON treats specially made likely. */
const codeUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom(
    '"',
    '\\',
    '\n',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u2028',
    '\u2029',
    '\ud800',
    '\udfff',
    '😀',
    'é',
    '/',
  ),
  fc.constantFrom('a', 'b', '_', '0', ' '),
);
const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: codeUnit, maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{3,4}_[0-9a-f]{32}$/) },
);
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e21, 5e-324),
);
/** Any value at all in a field: JSON, or what JSON.stringify leaves out or rewrites. */
const anything = fc.oneof(
  fc.jsonValue(),
  fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withDate: true }),
  fc.constantFrom(undefined, () => 1, Symbol('s'), { toJSON: () => 'replaced' }, { toJSON: () => undefined }),
  fc.constantFrom(
    new (class Point {
      x = 1;
    })(),
    Object.assign(Object.create({ inherited: 1 }), { own: 2 }),
  ),
);
/** Mostly the field's usual kind of value, sometimes anything. */
const field = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: usual }, { weight: 1, arbitrary: anything });
const nullable = <T>(usual: fc.Arbitrary<T>) => fc.oneof(fc.constant(null), usual);
/** Often the spec's default (the serializer writes a run of defaults as one text), else the usual kind. */
const defaulted = <T>(value: T, usual: fc.Arbitrary<T>) =>
  field(fc.oneof({ weight: 5, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: usual }));

const outputText = fc.record({
  type: fc.constant('output_text'),
  text: field(text),
  annotations: field(fc.oneof(fc.constant([]), fc.array(fc.jsonValue(), { maxLength: 2 }))),
  logprobs: field(fc.oneof(fc.constant([]), fc.array(fc.jsonValue(), { maxLength: 2 }))),
});
const inputText = fc.record({ type: fc.constant('input_text'), text: field(text) });
const message = (part: fc.Arbitrary<object>, phase: boolean) =>
  fc.record({
    type: fc.constant('message'),
    id: field(text),
    status: field(fc.constantFrom('completed', 'in_progress', 'incomplete')),
    role: field(fc.constantFrom('assistant', 'user', 'system', 'developer')),
    content: field(
      fc.array(fc.oneof({ weight: 4, arbitrary: part }, { weight: 1, arbitrary: anything }), { maxLength: 3 }),
    ),
    ...(phase ? { phase: field(fc.constantFrom('final_answer', 'commentary')) } : {}),
  });
const otherItem = fc.oneof(
  fc.record({ type: fc.constant('function_call'), id: text, call_id: text, name: text, arguments: text, status: text }),
  fc.record({ type: fc.constant('reasoning'), id: text, summary: fc.array(fc.jsonValue(), { maxLength: 2 }) }),
);
const item = fc.oneof(
  { weight: 4, arbitrary: message(outputText, true) },
  { weight: 4, arbitrary: message(inputText, false) },
  { weight: 1, arbitrary: message(outputText, false) },
  { weight: 2, arbitrary: otherItem },
  { weight: 1, arbitrary: anything },
);

const usage = fc.record({
  input_tokens: field(fc.nat()),
  output_tokens: field(fc.nat()),
  total_tokens: field(number),
  input_tokens_details: field(fc.record({ cached_tokens: field(fc.nat()) })),
  output_tokens_details: field(fc.record({ reasoning_tokens: field(fc.nat()) })),
});

/** A response in the order the server writes its fields, each mostly of its usual kind. */
const response = fc.record({
  id: field(text),
  object: field(fc.constant('response')),
  created_at: field(number),
  completed_at: field(nullable(fc.nat())),
  status: field(fc.constantFrom('completed', 'incomplete', 'failed', 'in_progress')),
  incomplete_details: field(nullable(fc.record({ reason: text }))),
  previous_response_id: field(nullable(text)),
  instructions: field(nullable(text)),
  output: field(fc.array(item, { maxLength: 4 })),
  error: field(nullable(fc.record({ code: text, message: text }))),
  tools: defaulted([] as unknown[], fc.array(fc.jsonValue(), { maxLength: 2 })),
  tool_choice: defaulted('auto', fc.constantFrom('none', 'required', 'auto"')),
  truncation: defaulted('disabled', fc.constantFrom('auto')),
  parallel_tool_calls: defaulted(true, fc.boolean()),
  text: field(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ format: field(fc.record({ type: defaulted('text', fc.constant('json_object')) })) }),
      },
      { weight: 1, arbitrary: fc.record({ format: fc.record({ type: fc.constant('text') }), verbosity: text }) },
    ),
  ),
  top_p: defaulted(1, number),
  presence_penalty: defaulted(0, number),
  frequency_penalty: defaulted(0, number),
  top_logprobs: defaulted(0, fc.nat()),
  temperature: defaulted(1, number),
  reasoning: defaulted(null, fc.record({ effort: nullable(text), summary: nullable(text) }) as fc.Arbitrary<unknown>),
  usage: field(nullable(usage)),
  max_output_tokens: defaulted(null, fc.nat() as fc.Arbitrary<number | null>),
  max_tool_calls: defaulted(null, fc.nat() as fc.Arbitrary<number | null>),
  store: field(fc.boolean()),
  background: defaulted(false, fc.boolean()),
  service_tier: defaulted('default', fc.constantFrom('flex', 'priority')),
  metadata: field(
    fc.oneof(
      { weight: 5, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.dictionary(text, text, { maxKeys: 2 }) },
    ),
  ),
  safety_identifier: defaulted(null, text as fc.Arbitrary<string | null>),
  prompt_cache_key: defaulted(null, text as fc.Arbitrary<string | null>),
  model: field(text),
});

type Edit = (value: Record<string, unknown>) => void;
/** What an extension, a newer spec or a bug may do to any object of a known shape. */
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.tuple(text, anything).map(
    ([key, value]): Edit =>
      (o) =>
        void (o[key] = value),
  ),
  fc.nat().map(
    (n): Edit =>
      (o) => {
        const keys = Object.keys(o);
        if (keys.length > 0) delete o[keys[n % keys.length]!];
      },
  ),
  fc.nat().map(
    (n): Edit =>
      (o) => {
        // One key moved to the end: the same fields in another order.
        const keys = Object.keys(o);
        if (keys.length === 0) return;
        const key = keys[n % keys.length]!;
        const value = o[key];
        delete o[key];
        o[key] = value;
      },
  ),
  fc.nat().map(
    (n): Edit =>
      (o) => {
        const keys = Object.keys(o);
        if (keys.length > 0) o[keys[n % keys.length]!] = undefined;
      },
  ),
  fc.constant<Edit>((o) => void (o.toJSON = () => ({ replaced: true }))),
  fc.constant<Edit>((o) => void Object.setPrototypeOf(o, { inherited: 'yes' })),
  fc.constant<Edit>((o) => void Object.setPrototypeOf(o, null)),
  fc.constant<Edit>((o) => void (o[0] = 'an index key, which comes first')),
);

/** Every object inside `value` (containers included), in a fixed order. */
function objectsIn(value: unknown, found: Array<Record<string, unknown>> = []): Array<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || found.includes(value as Record<string, unknown>)) return found;
  found.push(value as Record<string, unknown>);
  for (const key of Object.keys(value)) objectsIn((value as Record<string, unknown>)[key], found);
  return found;
}

/** `value` with `edits` applied to objects picked inside it. */
const edited = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.tuple(arbitrary, fc.array(fc.tuple(fc.nat(), edit), { maxLength: 3 })).map(([value, edits]) => {
    for (const [at, change] of edits) {
      const objects = objectsIn(value);
      try {
        change(objects[at % objects.length]!);
      } catch {
        // Not every object takes every edit (a boxed string's characters cannot be deleted).
      }
    }
    return value;
  });

/** The pieces' text (the one piece as it is: `JSON.stringify` of a value that is not JSON is undefined). */
const itemsJson = (items: readonly ItemField[]) => {
  const pieces = itemsJsonPieces(items);
  return pieces.length === 1 ? pieces[0]! : pieces.join('');
};

/** `value` with a `toJSON` of its own that is not enumerable: `JSON.stringify` calls it, `for…in` does not list it. */
const hideToJson = <T extends object>(value: T): T => Object.defineProperty(value, 'toJSON', { value: () => 'hidden' });

/** Both texts alike, or both serializers throwing alike (a BigInt). */
const sameAsJson = (fast: (value: never) => string, value: unknown) => {
  let expected: string | undefined;
  try {
    expected = JSON.stringify(value);
  } catch (error) {
    expect(() => fast(value as never)).toThrow((error as Error).constructor as ErrorConstructor);
    return;
  }
  expect(fast(value as never)).toBe(expected);
};

describe('byte-equal to JSON.stringify', () => {
  test('responses in the server’s shapes', () => {
    fc.assert(
      fc.property(response, (r) => sameAsJson(responseJson, r)),
      { numRuns: 1000 },
    );
  });

  test('responses with keys added, dropped, moved or undefined, toJSON, other prototypes, anything anywhere', () => {
    fc.assert(
      fc.property(edited(response), (r) => sameAsJson(responseJson, r)),
      { numRuns: 1500 },
    );
  });

  test('input items, edited likewise, and values that are not arrays at all', () => {
    fc.assert(
      fc.property(fc.oneof(edited(fc.array(item, { maxLength: 5 })), anything), (items) =>
        sameAsJson(itemsJson, items),
      ),
      { numRuns: 1500 },
    );
  });

  test('the cases by name', () => {
    // The events package's starting response: the fields in the server's order, at the spec's defaults.
    const base = () =>
      Object.assign(startingResponse({ model: 'm' }), {
        status: 'completed',
        instructions: 'say "hi"\n\u2028\ud800',
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'a\\b\u0001é😀', annotations: [], logprobs: [] }],
            phase: 'final_answer',
          },
        ],
      }) as unknown as Record<string, unknown>;
    const usage = (cached: number, reasoning: number) => ({
      input_tokens: 5,
      output_tokens: 7,
      total_tokens: 12,
      input_tokens_details: { cached_tokens: cached },
      output_tokens_details: { reasoning_tokens: reasoning },
    });
    const cases: Array<[string, (r: Record<string, unknown>) => void]> = [
      ['as made', () => {}],
      ['an id with a quote (an unchecked string needs an escape)', (r) => void (r.id = 'resp_"')],
      ['a model with a lone surrogate', (r) => void (r.model = 'm\udc00')],
      ['an unknown key last', (r) => void (r['acme:extra'] = 1)],
      ['a key left out', (r) => void delete r.usage],
      ['a key undefined', (r) => void (r.error = undefined)],
      ['a toJSON', (r) => void (r.toJSON = () => 'x')],
      ['a toJSON on the output array', (r) => void ((r.output as { toJSON?: () => string }).toJSON = () => 'x')],
      ['a non-finite number', (r) => void (r.temperature = Number.POSITIVE_INFINITY)],
      ['NaN', (r) => void (r.top_p = Number.NaN)],
      ['a Date', (r) => void (r.metadata = new Date(0))],
      ['a function in the output', (r) => void (r.output as unknown[]).push(() => 1)],
      ['undefined in the output', (r) => void (r.output as unknown[]).push(undefined)],
      ['a BigInt', (r) => void (r.created_at = 1n)],
      ['an id that starts with a NUL (the first unchecked character)', (r) => void (r.id = '\u0000resp')],
      // The usual values written inside the literals around them, and each one of them otherwise.
      ['another object', (r) => void (r.object = 'response"')],
      ['completed with incomplete details', (r) => void (r.incomplete_details = { reason: 'max_output_tokens' })],
      ['in progress', (r) => void (r.status = 'in_progress')],
      ['a message of another role', (r) => void ((r.output as Array<Record<string, unknown>>)[0]!.role = 'user')],
      ['a message in progress', (r) => void ((r.output as Array<Record<string, unknown>>)[0]!.status = 'in_progress')],
      [
        'logprobs',
        (r) =>
          void ((r.output as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content[0]!.logprobs = [
            { token: 'a', logprob: -1 },
          ]),
      ],
      ['usage with no detailed tokens', (r) => void (r.usage = usage(0, 0))],
      ['usage with cached tokens', (r) => void (r.usage = usage(3, 0))],
      ['usage with reasoning tokens', (r) => void (r.usage = usage(0, 2))],
      [
        'usage with a detail of another shape',
        (r) => void (r.usage = { ...usage(0, 0), input_tokens_details: { cached_tokens: 0, audio_tokens: 0 } }),
      ],
      // Each of the plain-object checks (PLAIN_SITES), by a toJSON that `for…in` does not list, or an array.
      ['a hidden toJSON on the response', (r) => hideToJson(r)],
      ['a hidden toJSON on the usage', (r) => void (r.usage = hideToJson(usage(0, 0)))],
      ['a hidden toJSON on the metadata', (r) => void (r.metadata = hideToJson({}))],
      ['metadata an array', (r) => void (r.metadata = [])],
      ['a hidden toJSON on the text settings', (r) => void hideToJson(r.text as object)],
      ['a hidden toJSON on the format', (r) => void hideToJson((r.text as { format: object }).format)],
      [
        'a hidden toJSON on a token detail',
        (r) => void (r.usage = { ...usage(0, 0), output_tokens_details: hideToJson({ reasoning_tokens: 0 }) }),
      ],
      ['a hidden toJSON on the message', (r) => void hideToJson((r.output as object[])[0]!)],
      [
        'a hidden toJSON on the message’s text',
        (r) => void hideToJson((r.output as Array<{ content: object[] }>)[0]!.content[0]!),
      ],
      [
        'the last key inherited',
        (r) => {
          Object.setPrototypeOf(r, { model: r.model });
          delete r.model;
        },
      ],
      [
        'a message’s last key inherited',
        (r) => {
          const message = (r.output as Array<Record<string, unknown>>)[0]!;
          Object.setPrototypeOf(message, { phase: message.phase });
          delete message.phase;
        },
      ],
    ];
    for (const [name, change] of cases) {
      const r = base();
      change(r);
      expect(() => sameAsJson(responseJson, r), name).not.toThrow();
    }
  });

  test('input items whose last key is inherited (a message’s, a text part’s)', () => {
    const inherited = (own: Record<string, unknown>, last: Record<string, unknown>) =>
      Object.assign(Object.create(last), own);
    const items = [
      inherited({ type: 'message', role: 'user' }, { content: 'hi' }),
      { type: 'message', role: 'user', content: [inherited({ type: 'input_text' }, { text: 'hi' })] },
    ];
    for (const item of items) sameAsJson(itemsJson, [item]);
  });

  test('input items with a toJSON that `for…in` does not list (a message’s, a text part’s)', () => {
    const items = [
      hideToJson({ type: 'message', role: 'user', content: 'hi' }),
      { type: 'message', role: 'user', content: [hideToJson({ type: 'input_text', text: 'hi' })] },
    ];
    for (const item of items) sameAsJson(itemsJson, [item]);
  });

  test('a toJSON that serializes a response of its own inside', () => {
    const inner = { id: 'resp_"inner', object: 'response' } as unknown as ResponseResource;
    const outer = [{ type: 'message', toJSON: () => responseJson(inner) }, { id: 'resp_"x' }] as unknown as ItemField[];
    sameAsJson(itemsJson, outer);
  });
});

describe('input items in pieces', () => {
  test('a long input is cut between items into flat pieces under V8’s large-object size, whatever the items’ key order', () => {
    const text = 'the quick brown fox jumps over the lazy dog. '.repeat(20);
    // Alternating the server's key order and a client's (type, role, content, then id and status).
    const items = Array.from({ length: 1_200 }, (_, n) =>
      n % 2 === 0
        ? {
            type: 'message',
            id: `msg_${n}`,
            status: 'completed',
            role: 'user',
            content: [{ type: 'input_text', text }],
          }
        : {
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [] }],
            id: `msg_${n}`,
            status: 'completed',
          },
    ) as unknown as ItemField[];
    const pieces = itemsJsonPieces(items);
    expect(pieces.join('')).toBe(JSON.stringify(items));
    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces) expect(piece.length).toBeLessThan(64 * 1024);
  });

  test('items of mixed sizes over many groups, one longer than a group, and values that are not items join to JSON.stringify’s text', () => {
    const items: unknown[] = Array.from({ length: 400 }, (_, n) => ({
      type: 'message',
      role: n % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'input_text', text: `say "${n}"\n`.repeat(n < 100 ? 1 : (n * 37) % 2_000) }],
    }));
    items[200] = { type: 'message', role: 'user', content: 'x'.repeat(100_000) };
    items.push(undefined, null, 'a string', () => 1);
    const pieces = itemsJsonPieces(items as ItemField[]);
    expect(pieces.join('')).toBe(JSON.stringify(items));
    // Short items first made the groups long: the long items after them are not one large string. The one
    // long piece is the long item's, with the comma before it.
    expect(pieces.filter((piece) => piece.length >= 64 * 1024)).toEqual([`,${JSON.stringify(items[200])}`]);
  });

  test('a long message text past Latin-1 is a piece of its own, as it is; one in Latin-1 or with escapes stays in its group', () => {
    const wide = `✓ ${'x'.repeat(100_000)}`;
    const latin1 = `é ${'x'.repeat(100_000)}`;
    const escaped = `✓ "q" ${'x'.repeat(100_000)}`;
    const items = [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'short' },
          { type: 'input_text', text: wide },
        ],
      },
      { type: 'message', role: 'user', content: wide },
      { type: 'message', role: 'user', content: latin1 },
      { type: 'message', role: 'user', content: escaped },
      { type: 'message', role: 'user', content: 'after' },
    ];
    const pieces = itemsJsonPieces(items as unknown as ItemField[]);
    expect(pieces.join('')).toBe(JSON.stringify(items));
    expect(pieces.filter((piece) => piece === wide)).toHaveLength(2);
    expect(pieces.filter((piece) => piece.includes(latin1) || piece.includes(JSON.stringify(escaped)))).toHaveLength(2);
  });

  test('an item’s toJSON is given its index in the whole list, as JSON.stringify gives it', () => {
    const items = Array.from({ length: 300 }, (_, n) => ({
      type: 'message',
      n,
      toJSON: (key: string) => `item ${key}`,
    }));
    expect(itemsJsonPieces(items as unknown as ItemField[]).join('')).toBe(JSON.stringify(items));
  });
});

describe('the server’s own responses take the fast path', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  test('a stored and a store:false JSON turn answer what JSON.stringify of their response writes', async () => {
    for (const store of [true, false]) {
      const res = await post(server, '/v1/responses', {
        model: 'openresponses-deterministic',
        input: 'Hi "there"\n',
        store,
      });
      const answer = await res.text();
      expect(answer).toBe(JSON.stringify(JSON.parse(answer)));
      expect(JSON.parse(answer).output[0].content[0].text).toContain('"there"');
    }
  });

  test('the runner serializes no response and no input with JSON.stringify', async () => {
    const runner = createTurnRunner({
      providers: [new DeterministicModel()],
      defaultModel: 'openresponses-deterministic',
      sealer: createSealer([generateEncryptionKey()]),
      store: new InMemoryResponseStore(),
      limits: DEFAULT_LIMITS,
    });
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const outcome = await runner.turn(
        { model: 'openresponses-deterministic', input: 'Hello! My name is Ada.', instructions: 'Be "brief".' },
        { version: LATEST_SPEC_VERSION, owner: 'alice' },
      );
      const whole = stringify.mock.calls.filter(([value]) => value === outcome.response || value === outcome.input);
      stringify.mockRestore();
      expect(whole).toEqual([]);
      expect(outcome.json?.response).toBe(JSON.stringify(outcome.response));
      expect(outcome.json?.input).toBe(JSON.stringify(outcome.input));
      expect(outcome.json?.inputPieces?.join('')).toBe(JSON.stringify(outcome.input));
    } finally {
      stringify.mockRestore();
    }
  });
});
