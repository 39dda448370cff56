// Property: whatever a Chat Completions upstream sends (valid chunks, values of the wrong type, negative
// counts, interleaved tool-call fragments, junk, error chunks, streams cut or broken mid-byte, bytes split
// anywhere), the gateway serves a spec-valid event stream (the events package's checker, to the terminal
// event and [DONE]) or a spec error, and never a 5xx without one (nor an unexpected failure logged). The
// upstream is a web Response given to the real ChatCompletionsProvider as its fetch; the rest is the real
// service (turn runner, stream writer, SSE encoding, memory store).
import { checkStream, createSSEFrameDecoder } from '@openresponses/events';
import { LATEST_SPEC_VERSION, versions } from '@openresponses/zod';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ChatCompletionsProvider, createResponsesService, type ServiceResponse } from '../src/index.js';

/** Runs per property (CI-friendly: each is one in-process turn). */
const STREAM_RUNS = 300;
const JSON_RUNS = 150;

/** What the upstream answers the next call with. */
let answer: () => Response = () => new Response('{}');
const service = createResponsesService({
  providers: [new ChatCompletionsProvider({ baseUrl: 'http://upstream.invalid/v1', fetch: async () => answer() })],
});

let unexpected: unknown[] = [];
beforeEach(() => {
  unexpected = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    unexpected.push(args);
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

// ---- What an upstream may send ----

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ maxLength: 4, unit: 'grapheme' }),
  fc.constantFrom('', ' ', 'Hello', '{"a":'),
);
/**
 * The upstream's arbitraries. `noisy`: a value is now and then of another type (or an odd one of the same
 * type), and junk frames come in; without, every chunk is valid (the answers still cut and interleave).
 */
function upstreamOf(noisy: boolean) {
  const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
    !noisy
      ? valid
      : fc.oneof(
          { weight: 10, arbitrary: valid as fc.Arbitrary<unknown> },
          {
            weight: 1,
            arbitrary: fc.oneof(
              fc.integer({ min: -5, max: 5 }),
              fc.double(),
              fc.boolean(),
              fc.constant(null),
              fc.string({ maxLength: 4 }),
              fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
              fc.array(fc.integer(), { maxLength: 2 }),
            ),
          },
        );
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
    end: fc.constantFrom<UpstreamStream['end']>('done', 'done', 'done', 'done', 'cut', 'broken'),
    splits: fc.array(fc.nat(), { maxLength: 6 }),
  });
  return { mostly, text, count, logprobs, stream };
}
const clean = upstreamOf(false);
const noisy = upstreamOf(true);
const upstreamStream = fc.oneof(clean.stream, noisy.stream);

interface UpstreamStream {
  frames: string[];
  end: 'done' | 'cut' | 'broken';
  splits: number[];
}

function sseResponse({ frames, end, splits }: UpstreamStream): Response {
  const bytes = new TextEncoder().encode(frames.join('') + (end === 'done' ? 'data: [DONE]\n\n' : ''));
  const cuts = [...new Set(splits.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces = [0, ...cuts, bytes.length].flatMap((at, i, all) =>
    i === 0 || at === all[i - 1] ? [] : [bytes.subarray(all[i - 1]!, at)],
  );
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]!);
      else if (end === 'broken') controller.error(new Error('connection reset'));
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

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

async function serve(
  stream: boolean,
  { withTools, logprobs, maxOutputTokens }: RequestOptions,
): Promise<{ status: number; contentType: string; text: string }> {
  const body = Object.assign(
    { model: 'up', input: 'hi', stream },
    withTools ? { tools } : {},
    logprobs ? { include: ['message.output_text.logprobs'] } : {},
    maxOutputTokens ? { max_output_tokens: maxOutputTokens } : {},
  );
  const response: ServiceResponse = await service.handle({
    method: 'POST',
    path: '/v1/responses',
    header: (name) => (name === 'content-type' ? 'application/json' : null),
    text: async () => JSON.stringify(body),
  });
  let text = '';
  if (typeof response.body === 'string') text = response.body;
  else if (response.body)
    await response.body.pipe((chunk) => {
      text += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
    });
  return { status: response.status, contentType: response.headers['content-type'] ?? '', text };
}

/** A spec error body: the four fields, a 5xx only for the gateway's or the model's failures (never a bug). */
function expectSpecError(status: number, text: string) {
  const { error } = JSON.parse(text) as { error: Record<string, unknown> };
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof error.message).toBe('string');
  if (status >= 500) {
    expect(['model_error', 'server_error']).toContain(error.type);
    expect(error.code).not.toBe('internal_error');
  }
}

function eventsOf(text: string): { events: unknown[]; sawDone: boolean } {
  const events: unknown[] = [];
  let sawDone = false;
  createSSEFrameDecoder().feed(new TextEncoder().encode(text), (frame) => {
    if (frame.data === '[DONE]') sawDone = true;
    else events.push(JSON.parse(frame.data));
    return undefined;
  });
  return { events, sawDone };
}

describe('Chat Completions chunk translation, fuzzed', () => {
  test('any upstream stream: a spec-valid event stream, or a spec error', async () => {
    await fc.assert(
      fc.asyncProperty(upstreamStream, request, async (upstream, options) => {
        answer = () => sseResponse(upstream);
        const { status, contentType, text } = await serve(true, options);
        expect(unexpected).toEqual([]);
        if (!contentType.startsWith('text/event-stream')) return expectSpecError(status, text);
        expect(status).toBe(200);
        const { events, sawDone } = eventsOf(text);
        const violations = checkStream(events, { sawDone }).filter((v) => v.severity === 'error');
        expect(violations).toEqual([]);
        const last = events.at(-1) as { type: string; response: { status: string; error: { code?: unknown } | null } };
        // The translator hands the turn a valid sequence of parts (the runner would fail it as invalid_model_stream).
        expect(last.response.error?.code).not.toBe('invalid_model_stream');
        if (last.type === 'response.failed')
          expect(last.response.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
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
