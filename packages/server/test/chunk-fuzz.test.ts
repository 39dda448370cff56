// Property: whatever a Chat Completions upstream sends (valid chunks, values of the wrong type, negative
// counts, interleaved tool-call fragments, junk, error chunks, streams cut or broken mid-byte, bytes split
// anywhere), the gateway serves a spec-valid event stream (the events package's checker, to the terminal
// event and [DONE]) or a spec error, and never a 5xx without one (nor an unexpected failure logged). The
// upstream is a web Response given to the real ChatCompletionsProvider as its fetch; the rest is the real
// service (turn runner, stream writer, SSE encoding, memory store).
import { LATEST_SPEC_VERSION, versions } from '@openresponses/zod';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ChatCompletionsProvider, createResponsesService } from '../src/index.js';
import {
  type StreamEnd,
  expectSpecError,
  expectValidStream,
  serveTurn,
  splits,
  streamEnd,
  text,
  upstreamAnswer,
  watchUnexpected,
  wrongValue,
} from './upstream-fuzz.js';

/** Runs per property (CI-friendly: each is one in-process turn). */
const STREAM_RUNS = 300;
const JSON_RUNS = 150;

/** What the upstream answers the next call with. */
let answer: () => Response = () => new Response('{}');
const service = createResponsesService({
  providers: [new ChatCompletionsProvider({ baseUrl: 'http://upstream.invalid/v1', fetch: async () => answer() })],
});

const unexpected = watchUnexpected();

// ---- What an upstream may send ----

/**
 * The upstream's arbitraries. `noisy`: a value is now and then of another type (or an odd one of the same
 * type), and junk frames come in; without, every chunk is valid (the answers still cut and interleave).
 */
function upstreamOf(noisy: boolean) {
  const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
    !noisy
      ? valid
      : fc.oneof({ weight: 10, arbitrary: valid as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: wrongValue });
  const count = mostly(fc.nat({ max: 1_000 }));
  const choice = (delta: fc.Arbitrary<unknown>, extra: Record<string, fc.Arbitrary<unknown>> = {}) =>
    fc.record({ choices: fc.tuple(fc.record({ index: fc.constant(0), delta, ...extra })) });

  const logprobs = fc.record({
    content: mostly(
      fc.array(
        fc.record(
          {
            token: mostly(text),
            logprob: mostly(fc.double({ min: -20, max: 0, noNaN: true })),
            bytes: mostly(fc.array(fc.nat({ max: 255 }), { maxLength: 3 })),
            top_logprobs: mostly(fc.constant([])),
          },
          { requiredKeys: ['token', 'logprob'] },
        ),
        { maxLength: 2 },
      ),
    ),
  });
  const fragment = fc.record(
    {
      index: mostly(fc.nat({ max: 3 })),
      id: mostly(fc.constantFrom('call_a', 'call_b', 'call_c')),
      type: fc.constant('function'),
      function: mostly(
        fc.record(
          { name: mostly(fc.constantFrom('f', 'g', 'look', 'up', '')), arguments: mostly(text) },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: ['index'] },
  );
  const chunk = fc.oneof(
    { weight: 6, arbitrary: choice(fc.record({ content: mostly(text) }), { logprobs: mostly(logprobs) }) },
    { weight: 2, arbitrary: choice(fc.record({ reasoning_content: mostly(text) })) },
    { weight: 1, arbitrary: choice(fc.record({ reasoning: mostly(text), content: fc.constant(null) })) },
    { weight: 1, arbitrary: choice(fc.record({ refusal: mostly(text) })) },
    {
      weight: 5,
      arbitrary: choice(fc.record({ tool_calls: mostly(fc.array(fragment, { minLength: 1, maxLength: 3 })) })),
    },
    {
      weight: 3,
      arbitrary: choice(fc.constant({}), {
        finish_reason: mostly(
          fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'function_call', 'eos'),
        ),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        choices: fc.constant([]),
        usage: mostly(
          fc.record({
            prompt_tokens: count,
            completion_tokens: count,
            total_tokens: count,
            prompt_tokens_details: mostly(fc.record({ cached_tokens: count })),
            completion_tokens_details: mostly(fc.record({ reasoning_tokens: count })),
          }),
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ error: mostly(fc.record({ message: mostly(text), type: fc.constant('x') })) }),
    },
    { weight: noisy ? 1 : 0, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  /** One SSE frame: a chunk, now and then a comment or a data line that is not JSON. */
  const frame = fc.oneof(
    { weight: 20, arbitrary: chunk.map((c) => `data: ${JSON.stringify(c)}\n\n`) },
    { weight: 1, arbitrary: fc.constant(': keep-alive\n\n') },
    { weight: noisy ? 1 : 0, arbitrary: text.map((t) => `data: nope${t}\n\n`) },
  );
  /** A whole stream: frames, then [DONE], nothing (cut), or a broken connection; delivered in pieces split anywhere. */
  const stream = fc.record({
    frames: fc.array(frame, { maxLength: 14 }),
    end: streamEnd,
    splits,
  });
  return { mostly, text, count, logprobs, stream };
}
const clean = upstreamOf(false);
const noisy = upstreamOf(true);
const upstreamStream = fc.oneof(clean.stream, noisy.stream);

/** A stream as the upstream sends it, [DONE] at its end when whole. */
const sseAnswer = ({ frames, end, splits }: { frames: string[]; end: StreamEnd; splits: number[] }) =>
  upstreamAnswer(`${frames.join('')}${end === 'whole' ? 'data: [DONE]\n\n' : ''}`, end, splits, 'text/event-stream');

// ---- The gateway's answer ----

const tools = [
  { type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false },
  { type: 'function', name: 'g', parameters: { type: 'object', properties: {} }, strict: false },
];
interface RequestOptions {
  withTools: boolean;
  logprobs: boolean;
  maxOutputTokens: number | undefined;
}
const request: fc.Arbitrary<RequestOptions> = fc.record({
  withTools: fc.boolean(),
  logprobs: fc.boolean(),
  maxOutputTokens: fc.option(fc.integer({ min: 16, max: 40 }), { nil: undefined }),
});

function serve(stream: boolean, { withTools, logprobs, maxOutputTokens }: RequestOptions) {
  return serveTurn(
    service,
    Object.assign(
      { model: 'up', input: 'hi', stream },
      withTools ? { tools } : {},
      logprobs ? { include: ['message.output_text.logprobs'] } : {},
      maxOutputTokens ? { max_output_tokens: maxOutputTokens } : {},
    ),
  );
}

describe('Chat Completions chunk translation, fuzzed', () => {
  test('any upstream stream: a spec-valid event stream, or a spec error', async () => {
    await fc.assert(
      fc.asyncProperty(upstreamStream, request, async (upstream, options) => {
        answer = () => sseAnswer(upstream);
        const { status, contentType, text } = await serve(true, options);
        expect(unexpected).toEqual([]);
        if (!contentType.startsWith('text/event-stream')) return expectSpecError(status, text);
        expect(status).toBe(200);
        expectValidStream(text);
      }),
      { numRuns: STREAM_RUNS },
    );
  });

  const completionOf = ({ mostly, text, count, logprobs }: ReturnType<typeof upstreamOf>) =>
    fc.record(
      {
        id: fc.constant('chatcmpl-1'),
        choices: mostly(
          fc.array(
            fc.record(
              {
                index: fc.constant(0),
                message: mostly(
                  fc.record(
                    {
                      role: fc.constant('assistant'),
                      content: mostly(fc.option(text, { nil: null })),
                      reasoning_content: mostly(fc.option(text, { nil: null })),
                      refusal: mostly(fc.option(text, { nil: null })),
                      tool_calls: mostly(
                        fc.array(
                          fc.record({
                            id: mostly(fc.constantFrom('call_a', 'call_b')),
                            type: fc.constant('function'),
                            function: mostly(
                              fc.record({ name: mostly(fc.constantFrom('f', 'g', 'h')), arguments: mostly(text) }),
                            ),
                          }),
                          { maxLength: 2 },
                        ),
                      ),
                    },
                    { requiredKeys: ['role'] },
                  ),
                ),
                logprobs: mostly(fc.option(logprobs, { nil: null })),
                finish_reason: mostly(fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'eos')),
              },
              { requiredKeys: ['message'] },
            ),
            { maxLength: 2 },
          ),
        ),
        usage: mostly(fc.record({ prompt_tokens: count, completion_tokens: count, total_tokens: count })),
      },
      { requiredKeys: ['choices'] },
    );
  const completion = fc.oneof(completionOf(clean), completionOf(noisy));
  const jsonAnswer = fc.oneof(
    { weight: 8, arbitrary: completion.map((c) => JSON.stringify(c)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: completion.chain((c) => fc.nat().map((n) => JSON.stringify(c).slice(0, n % 40))) },
  );

  test('any whole completion: a spec-valid response, or a spec error', async () => {
    const ResponseResource = versions[LATEST_SPEC_VERSION].exact.ResponseResourceSchema;
    await fc.assert(
      fc.asyncProperty(jsonAnswer, request, async (body, options) => {
        answer = () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
        const { status, text } = await serve(false, options);
        expect(unexpected).toEqual([]);
        if (status !== 200) return expectSpecError(status, text);
        const parsed = ResponseResource.safeParse(JSON.parse(text));
        expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
      }),
      { numRuns: JSON_RUNS },
    );
  });
});
