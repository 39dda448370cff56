// Differential: the fast checks of what a Chat Completions upstream sends (wire-check.ts, on the gateway's hot
// path) accept and refuse exactly the values the Zod wire schemas (wire.ts) do. The values are shaped like
// chunks and completions, with any field absent, null, of another type, an edge number (a negative, a
// fraction, 2^53, NaN, Infinity) or an unknown extra; both as parsed from JSON and as they are in memory.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isChatChunk, isChatCompletion } from '../src/models/chat-completions/wire-check.js';
import { chunkSchema, completionSchema } from '../src/models/chat-completions/wire.js';

const RUNS = 2000;

const edgeNumber = fc.constantFrom(0, -0, 1, 7, 255, 256, -1, 0.5, 2 ** 53 - 1, 2 ** 53, 1e300, Number.NaN, Infinity);
const wrong = fc.oneof(
  edgeNumber,
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 2 })), { maxLength: 2 }),
);
/** Mostly `valid`, now and then anything else (null and wrong types included). */
const mostly = (valid: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 12, arbitrary: valid },
    { weight: 1, arbitrary: wrong },
    { weight: 1, arbitrary: fc.constant(null) },
  );
/** An object with `shape`'s keys each maybe absent, and maybe an unknown extra key. */
const loose = (shape: Record<string, fc.Arbitrary<unknown>>) =>
  mostly(
    fc
      .tuple(
        fc.record(shape, { requiredKeys: [] }),
        fc.option(fc.tuple(fc.constantFrom('extra', 'x_vendor'), fc.jsonValue({ maxDepth: 2 }))),
      )
      .map(([record, extra]) => (extra ? Object.assign(record, { [extra[0]]: extra[1] }) : record)),
  );
const list = (item: fc.Arbitrary<unknown>) => mostly(fc.array(item, { maxLength: 3 }));

const text = mostly(fc.string({ maxLength: 4 }));
const count = mostly(fc.oneof(fc.nat({ max: 1000 }), edgeNumber));
const bytes = list(mostly(fc.oneof(fc.nat({ max: 255 }), edgeNumber)));
const topLogprob = loose({
  token: text,
  logprob: mostly(fc.oneof(fc.double({ min: -20, max: 0 }), edgeNumber)),
  bytes,
});
const tokenLogprob = loose({
  token: text,
  logprob: mostly(fc.oneof(fc.double({ min: -20, max: 0 }), edgeNumber)),
  bytes,
  top_logprobs: list(topLogprob),
});
const logprobs = loose({ content: list(tokenLogprob) });
const usage = loose({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count,
  prompt_tokens_details: loose({ cached_tokens: count }),
  completion_tokens_details: loose({ reasoning_tokens: count }),
});
const texts = { content: text, refusal: text, reasoning_content: text, reasoning: text };

const chunk = loose({
  choices: list(
    loose({
      delta: loose({
        ...texts,
        tool_calls: list(loose({ index: count, id: text, function: loose({ name: text, arguments: text }) })),
      }),
      logprobs,
      finish_reason: text,
    }),
  ),
  usage,
  error: mostly(
    fc.oneof(fc.string({ maxLength: 4 }), loose({ message: text, type: text, code: fc.jsonValue({ maxDepth: 2 }) })),
  ),
});

const completion = loose({
  choices: list(
    loose({
      message: loose({
        ...texts,
        tool_calls: list(loose({ id: text, function: loose({ name: text, arguments: text }) })),
      }),
      logprobs,
      finish_reason: text,
    }),
  ),
  usage,
});

/** Runs the property on `values` as they are and as parsed from their JSON; both outcomes must be common. */
function sameVerdicts(arbitrary: fc.Arbitrary<unknown>, fast: (v: unknown) => boolean, zod: (v: unknown) => boolean) {
  const verdicts = { accepted: 0, refused: 0 };
  fc.assert(
    fc.property(arbitrary, (value) => {
      for (const candidate of [value, JSON.parse(JSON.stringify(value) ?? 'null') as unknown]) {
        const accepted = zod(candidate);
        expect(fast(candidate), JSON.stringify(candidate)).toBe(accepted);
        verdicts[accepted ? 'accepted' : 'refused']++;
      }
    }),
    { numRuns: RUNS },
  );
  // Both sides of the line are exercised, not one of them.
  expect(verdicts.accepted).toBeGreaterThan(RUNS / 10);
  expect(verdicts.refused).toBeGreaterThan(RUNS / 10);
}

describe('the fast Chat Completions wire checks agree with the Zod schemas', () => {
  test('chat.completion.chunk', () => {
    sameVerdicts(chunk, isChatChunk, (v) => chunkSchema.safeParse(v).success);
  });

  test('chat.completion', () => {
    sameVerdicts(completion, isChatCompletion, (v) => completionSchema.safeParse(v).success);
  });

  test('known answers', () => {
    const real = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, logprobs: null, finish_reason: null }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    };
    expect(isChatChunk(real)).toBe(true);
    expect(isChatChunk({ ...real, usage: { prompt_tokens: -1 } })).toBe(false);
    expect(isChatChunk({ choices: [{ delta: { content: 5 } }] })).toBe(false);
    expect(isChatChunk([])).toBe(false);
    expect(isChatChunk({ error: { message: 'overloaded', code: null } })).toBe(true);
    // vLLM and others send an error object without `code`: its message must reach the client, not be refused.
    expect(isChatChunk({ error: { message: 'overloaded' } })).toBe(true);
    expect(chunkSchema.safeParse({ error: { message: 'overloaded' } }).success).toBe(true);
    expect(isChatCompletion({ choices: [{ message: { content: 'Hi' } }] })).toBe(true);
    expect(isChatCompletion({ choices: [{ message: { tool_calls: [{ function: { name: 'f' } }] } }] })).toBe(false);
    expect(isChatCompletion({})).toBe(false);
  });
});
