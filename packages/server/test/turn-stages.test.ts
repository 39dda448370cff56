// The turn's stages (responses/turn/), each on its own: prepare's steps, the provider request, the stream
// of parts into ordered events (output budget, tool-call bound, ordering queue, cancellation) and the echo;
// then the output budget through the gateway against the hostile upstream.
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { type AnyStreamingEvent, startingResponse } from '@openresponses/events';
import type { CreateResponseBody, ItemField, ResponseResource } from '@openresponses/types';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cancellation } from '../src/cancellation.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/limits.js';
import { ChatCompletionsProvider } from '../src/models/chat-completions/index.js';
import type { ModelPart, ModelProvider, ModelRequest } from '../src/models/provider.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { acceptClientShapes, normalizeInput } from '../src/responses/context.js';
import { runTurn } from '../src/responses/turn.js';
import { initialResponse } from '../src/responses/turn/echo.js';
import { rejectOrphanToolOutputs } from '../src/responses/turn/prepare-orphan-outputs.js';
import { toolPolicyOf } from '../src/responses/turn/prepare-tool-policy.js';
import { fitToWindow, truncateOldest } from '../src/responses/turn/prepare-truncation.js';
import { countTokens, itemTokens } from '../src/models/item-text.js';
import { type PreparedTurn, prepareTurn, type TurnDependencies } from '../src/responses/turn/prepare.js';
import { providerRequest } from '../src/responses/turn/provider-request.js';
import { startHostileUpstream, type HostileUpstream } from '../src/testing/index.js';
import { post, startTestServer, stream } from './harness.js';

/** A provider that answers every turn with the parts `script` yields (and records what it was asked). */
class ScriptedProvider implements ModelProvider {
  readonly name = 'scripted';
  readonly contextWindow = 1000;
  readonly reportsLogprobs = true;
  readonly requests: ModelRequest[] = [];
  constructor(private readonly script: (request: ModelRequest) => Iterable<ModelPart> | AsyncIterable<ModelPart>) {}
  supports(model: string) {
    return model === 'scripted';
  }
  async *generate(request: ModelRequest): AsyncIterable<ModelPart> {
    this.requests.push(request);
    yield* this.script(request);
  }
}

const sealer = createSealer([generateEncryptionKey()]);
const depsWith = (provider: ModelProvider, limits: Partial<ServerLimits> = {}): TurnDependencies => ({
  providers: [provider],
  defaultModel: 'scripted',
  loadChain: async () => ({ chain: [] }),
  lookupItem: async () => undefined,
  sealer,
  limits: { ...DEFAULT_LIMITS, ...limits },
});
const finish: ModelPart = { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
const tool = (name: string) => ({ type: 'function' as const, name, parameters: { type: 'object' } });

async function turnOf(
  script: ConstructorParameters<typeof ScriptedProvider>[0],
  body: Record<string, unknown> = {},
  limits: Partial<ServerLimits> = {},
  cancellation?: Cancellation,
) {
  const provider = new ScriptedProvider(script);
  const deps = depsWith(provider, limits);
  const prepared = await prepareTurn({ model: 'scripted', input: 'hi', ...body }, LATEST_SPEC_VERSION, deps);
  const events: AnyStreamingEvent[] = [];
  const result = await runTurn(prepared, deps, { onEvent: (event) => events.push(event), cancellation });
  return { result, events, provider, bytes: JSON.stringify(result.response).length };
}

describe('prepare, one step at a time', () => {
  test('tool policy: tool_choice and allowed_tools become the names the model may call', () => {
    const tools = [tool('a'), tool('b')];
    expect(toolPolicyOf({ tool_choice: 'none' } as CreateResponseBody, tools)).toEqual({ mode: 'none', allowed: [] });
    expect(toolPolicyOf({ tool_choice: { type: 'function', name: 'b' } } as CreateResponseBody, tools)).toEqual({
      mode: 'required',
      allowed: ['b'],
      forced: 'b',
    });
    expect(() =>
      toolPolicyOf(
        { tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'c' }] } } as CreateResponseBody,
        tools,
      ),
    ).toThrow(expect.objectContaining({ code: 'unknown_tool', param: 'tool_choice.tools[0].name' }));
    expect(() => toolPolicyOf({ tool_choice: 'required' } as CreateResponseBody, [])).toThrow(
      expect.objectContaining({ code: 'tool_choice_without_tools' }),
    );
  });

  test('orphan outputs: a function_call_output must answer a call of the context', () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'a', arguments: '{}' } as ItemField;
    const output = { type: 'function_call_output', call_id: 'c1', output: 'ok' };
    const input = [output] as CreateResponseBody['input'];
    expect(() => rejectOrphanToolOutputs(input, [call], [])).not.toThrow();
    expect(() => rejectOrphanToolOutputs(input, [], [output as ItemField])).toThrow(
      expect.objectContaining({ code: 'function_call_not_found', param: 'input[0].call_id' }),
    );
  });

  test('truncation drops the oldest ordinary items first and keeps instructions', () => {
    const message = (role: string, text: string) => ({ type: 'message', role, content: text }) as unknown as ItemField;
    const items = [message('system', 's'), message('user', 'u1'), message('assistant', 'a1'), message('user', 'u2')];
    const { items: kept, tokens } = truncateOldest(items, [5, 10, 10, 10], 35, 16);
    expect(kept.map((item) => (item as unknown as { content: string }).content)).toEqual(['s', 'u2']);
    expect(tokens).toBe(15);
  });

  test("input items are normalized into copies: ids, statuses, types and annotations added, the client's objects unchanged", async () => {
    const sent = [
      { role: 'user', content: 'hi' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b', annotations: [] }] },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ];
    const before = JSON.stringify(sent);
    const shaped = acceptClientShapes({ input: sent }) as { input: CreateResponseBody['input'] };
    const { input } = await normalizeInput(shaped.input, async () => undefined, sealer);
    expect(JSON.stringify(sent)).toBe(before);
    expect(input).toEqual([
      {
        type: 'message',
        role: 'user',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        content: [{ type: 'input_text', text: 'hi' }],
      },
      {
        type: 'message',
        role: 'assistant',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        content: [{ type: 'output_text', text: 'a', annotations: [] }],
      },
      {
        type: 'message',
        role: 'assistant',
        id: expect.stringMatching(/^msg_/),
        status: 'completed',
        content: [{ type: 'output_text', text: 'b', annotations: [] }],
      },
      {
        type: 'function_call',
        call_id: 'c',
        name: 'f',
        arguments: '{}',
        id: expect.stringMatching(/^fc_/),
        status: 'completed',
      },
    ]);
    for (const [index, item] of input.entries()) expect(item).not.toBe(sent[index]);
  });

  test('the window check decides as the exact count does, and counts only when the length does not decide', () => {
    const text = fc
      .array(fc.constantFrom('a', 'a', ' ', ' ', 'word', '  ', '\n', '\u00a0', '日'), { maxLength: 30 })
      .map((pieces) => pieces.join(''));
    const item = fc.oneof(
      fc.record({
        type: fc.constant('message'),
        role: fc.constantFrom('user', 'assistant', 'system'),
        content: fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 3 }),
      }),
      fc.record({ type: fc.constant('function_call'), call_id: fc.constant('c'), name: text, arguments: text }),
      fc.record({ type: fc.constant('function_call_output'), call_id: fc.constant('c'), output: text }),
    );
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 8 }),
        fc.option(text, { nil: undefined }),
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom('auto', 'disabled') as fc.Arbitrary<'auto' | 'disabled'>,
        (values, instructions, window, truncation) => {
          const items = values as unknown as ItemField[];
          const perItem = items.map(itemTokens);
          const exact = perItem.reduce((n, count) => n + count, countTokens(instructions ?? ''));
          if (exact > window && truncation === 'disabled') {
            expect(() => fitToWindow(items, instructions, window, truncation)).toThrow(
              expect.objectContaining({ code: 'context_length_exceeded', param: 'input', status: 400 }),
            );
            return;
          }
          const fitted = fitToWindow(items, instructions, window, truncation);
          if (exact <= window) {
            expect(fitted.items).toBe(items);
            // Counted or not (see the next test), never a wrong count.
            if (fitted.inputTokens !== undefined) expect(fitted.inputTokens).toBe(exact);
          } else {
            const truncated = truncateOldest(items, perItem, exact, window);
            expect(fitted).toEqual({ items: truncated.items, inputTokens: truncated.tokens });
          }
        },
      ),
      { numRuns: 1000, seed: 35 },
    );
  });

  test('a context that fits by its length is not counted; one that fits only by its words is', () => {
    const message = (text: string) =>
      ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }) as unknown as ItemField;
    // 5 characters: at most 3 words, so a window of 3 needs no count.
    expect(fitToWindow([message('a b c')], null, 3, 'disabled')).toEqual({
      items: [message('a b c')],
      inputTokens: undefined,
    });
    // As many words as the length allows: counted, and over a window of 2.
    expect(() => fitToWindow([message('a b c')], null, 2, 'disabled')).toThrow(
      expect.objectContaining({ code: 'context_length_exceeded' }),
    );
    // 9 characters could be 5 words; they are 2, counted.
    expect(fitToWindow([message('abcd efgh')], null, 3, 'disabled').inputTokens).toBe(2);
    expect(fitToWindow([message('abcd efgh')], 'be brief', 3, 'auto')).toEqual({
      items: [message('abcd efgh')],
      inputTokens: 4,
    });
  });
});

describe('the provider request', () => {
  test('carries every prepared field, the watched stream flag, the trace context, and a signal made on first read', async () => {
    const provider = new ScriptedProvider(() => [finish]);
    const prepared = await prepareTurn(
      { model: 'scripted', input: 'hi', temperature: 0.5, metadata: { a: 'b' }, stream: true, tools: [tool('a')] },
      LATEST_SPEC_VERSION,
      depsWith(provider),
    );
    const cancellation = new Cancellation();
    const traceContext = ROOT_CONTEXT.setValue(Symbol('turn'), 'span');
    const request = providerRequest(prepared.request, cancellation, false, sealer, traceContext);
    // Every field of the prepared request, whatever fields ModelRequest gains.
    for (const [name, value] of Object.entries(prepared.request))
      if (name !== 'stream') expect((request as unknown as Record<string, unknown>)[name], name).toBe(value);
    expect(request.stream).toBe(false);
    expect(request.traceContext).toBe(traceContext);
    let heard = 0;
    request.onCancel?.(() => heard++);
    const signal = request.signal!;
    expect(signal.aborted).toBe(false);
    cancellation.cancel();
    expect([signal.aborted, heard]).toEqual([true, 1]);
  });
});

describe('the echo', () => {
  test('allowed_tools gets its mode and a json_schema format is echoed without its schema', async () => {
    const prepared: PreparedTurn = await prepareTurn(
      {
        model: 'scripted',
        input: 'hi',
        tools: [tool('a')],
        tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'a' }] },
        text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' } } },
      },
      LATEST_SPEC_VERSION,
      depsWith(new ScriptedProvider(() => [finish])),
    );
    const response = initialResponse(prepared, 7);
    expect(response.tool_choice).toEqual({
      type: 'allowed_tools',
      tools: [{ type: 'function', name: 'a' }],
      mode: 'auto',
    });
    expect(response.text.format).toEqual({
      type: 'json_schema',
      name: 'x',
      description: null,
      schema: null,
      strict: false,
    });
    expect([response.created_at, response.model, response.status]).toEqual([7, 'scripted', 'in_progress']);
  });
  test('a request that sets nothing starts from the spec defaults, field for field and in order, as startingResponse writes them', async () => {
    const prepared = await prepareTurn(
      { model: 'scripted', input: 'hi' },
      LATEST_SPEC_VERSION,
      depsWith(new ScriptedProvider(() => [finish])),
    );
    const response = initialResponse(prepared, 7);
    const expected = startingResponse({ model: 'scripted', created_at: 7 });
    expect(Object.keys(response)).toEqual(Object.keys(expected));
    expect(JSON.stringify({ ...response, id: null })).toBe(JSON.stringify({ ...expected, id: null }));
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
  });

  test('every field a request sets is echoed, in the same order', async () => {
    const prepared = await prepareTurn(
      {
        model: 'scripted',
        input: 'hi',
        tools: [tool('a')],
        instructions: 'be brief',
        truncation: 'auto',
        parallel_tool_calls: false,
        text: { verbosity: 'low' },
        top_p: 0.5,
        temperature: 0.2,
        reasoning: { effort: 'low' },
        max_output_tokens: 100,
        max_tool_calls: 3,
        store: false,
        service_tier: 'auto',
        metadata: { k: 'v' },
        safety_identifier: 's',
        prompt_cache_key: 'p',
      },
      LATEST_SPEC_VERSION,
      depsWith(new ScriptedProvider(() => [finish])),
    );
    const response = initialResponse(prepared, 7);
    expect(Object.keys(response)).toEqual(Object.keys(startingResponse({ model: 'scripted' })));
    expect(response).toMatchObject({
      instructions: 'be brief',
      tools: [{ type: 'function', name: 'a', description: null, parameters: { type: 'object' }, strict: false }],
      truncation: 'auto',
      parallel_tool_calls: false,
      text: { format: { type: 'text' }, verbosity: 'low' },
      top_p: 0.5,
      temperature: 0.2,
      reasoning: { effort: 'low', summary: null },
      max_output_tokens: 100,
      max_tool_calls: 3,
      store: false,
      service_tier: 'default',
      metadata: { k: 'v' },
      safety_identifier: 's',
      prompt_cache_key: 'p',
    });
  });
});

describe('the stream: every output byte counts toward maxOutputBytes', () => {
  const limits = { maxOutputBytes: 64 * 1024 };
  /** Endless parts after a start, never a finish: only the budget can end the turn. */
  function* endless(start: ModelPart[], part: ModelPart): Iterable<ModelPart> {
    yield* start;
    for (;;) yield part;
  }
  const logprobs = Array.from({ length: 1000 }, () => ({ token: 'a', logprob: -0.5, bytes: [97], top_logprobs: [] }));
  const cases: Array<[string, Iterable<ModelPart>, Record<string, unknown>]> = [
    [
      'logprobs carried by one-character deltas',
      endless([{ type: 'text-start', id: 't' }], { type: 'text-delta', id: 't', delta: 'a', logprobs }),
      { include: ['message.output_text.logprobs'] },
    ],
    [
      'a tool-call name',
      [{ type: 'function-call-start', id: 'c', name: 'a'.repeat(1024 * 1024) }, finish],
      { tools: [tool('a')] },
    ],
    [
      'tool-call arguments',
      endless([{ type: 'function-call-start', id: 'c', name: 'a' }], {
        type: 'function-call-delta',
        id: 'c',
        delta: 'x',
      }),
      { tools: [tool('a')] },
    ],
    [
      'reasoning text',
      endless([{ type: 'reasoning-start', id: 'r' }], { type: 'reasoning-delta', id: 'r', delta: 'think ' }),
      {},
    ],
    [
      'refusal text',
      endless([{ type: 'refusal-start', id: 'm' }], { type: 'refusal-delta', id: 'm', delta: 'no ' }),
      {},
    ],
    [
      'empty items',
      (function* () {
        for (let i = 0; ; i++) {
          yield { type: 'text-start', id: `t${i}` } as ModelPart;
          yield { type: 'text-end', id: `t${i}` } as ModelPart;
        }
      })(),
      {},
    ],
  ];
  for (const [what, parts, body] of cases)
    test(what, async () => {
      const { result, bytes } = await turnOf(() => parts, body, limits);
      expect(result.response.status).toBe('incomplete');
      expect(result.response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
      // The response holds at most the budget plus its fixed fields (the request's echo, ids).
      expect(bytes).toBeLessThan(3 * limits.maxOutputBytes);
    });
});

describe('the stream: a provider whose parts are synchronous', () => {
  /** A provider whose iterable is also synchronous (as the embedded model's): the turn reads it without promises. */
  const syncProvider = (parts: () => Generator<ModelPart>): ModelProvider & { stopped: number } => {
    const provider = {
      name: 'scripted',
      contextWindow: 1000,
      reportsLogprobs: true,
      stopped: 0,
      supports: (model: string) => model === 'scripted',
      generate: () => {
        const iterable = {
          [Symbol.iterator]: () => {
            const inner = parts();
            const stop = inner.return.bind(inner);
            return Object.assign(inner, {
              return: (value?: unknown) => {
                provider.stopped++;
                return stop(value);
              },
            });
          },
          [Symbol.asyncIterator]: () => {
            throw new Error('read asynchronously');
          },
        };
        return iterable as unknown as AsyncIterable<ModelPart>;
      },
    };
    return provider;
  };
  const run = async (provider: ModelProvider, limits: Partial<ServerLimits> = {}) => {
    const deps = depsWith(provider, limits);
    const prepared = await prepareTurn({ model: 'scripted', input: 'hi' }, LATEST_SPEC_VERSION, deps);
    return runTurn(prepared, deps);
  };

  test('answers like an asynchronous one', async () => {
    const result = await run(
      syncProvider(function* () {
        yield { type: 'text-start', id: 't' };
        yield { type: 'text-delta', id: 't', delta: 'hello' };
        yield { type: 'text-end', id: 't' };
        yield finish;
      }),
    );
    expect(result.response.status).toBe('completed');
    expect(result.response.output).toMatchObject([{ type: 'message', content: [{ text: 'hello' }] }]);
  });

  test('a throw mid-stream fails the turn as the model failing', async () => {
    const result = await run(
      syncProvider(function* () {
        yield { type: 'text-start', id: 't' };
        throw new Error('broken generator');
      }),
    );
    expect(result.response.status).toBe('failed');
    expect(result.error?.code).toBe('model_failed');
    expect(result.error?.message).toContain('broken generator');
  });

  test('a stream the output budget ends is stopped (its return is called)', async () => {
    const provider = syncProvider(function* () {
      yield { type: 'text-start', id: 't' };
      for (;;) yield { type: 'text-delta', id: 't', delta: 'word ' };
    });
    const result = await run(provider, { maxOutputBytes: 4096 });
    expect(result.response.status).toBe('incomplete');
    expect(provider.stopped).toBe(1);
  });
});

describe('the stream: tool calls and their order', () => {
  /** `count` calls that all start before any ends (so all but the first wait in the ordering queue). */
  function* interleavedCalls(count: number): Iterable<ModelPart> {
    for (let i = 0; i < count; i++) yield { type: 'function-call-start', id: `c${i}`, name: 'f', callId: `call_${i}` };
    for (let i = 0; i < count; i++) yield { type: 'function-call-delta', id: `c${i}`, delta: `{"i":${i}}` };
    for (let i = 0; i < count; i++) yield { type: 'function-call-end', id: `c${i}` };
    yield finish;
  }

  test('a response holds at most maxToolCallsPerResponse calls: past it the response ends incomplete', async () => {
    const { result } = await turnOf(
      () => interleavedCalls(50),
      { tools: [tool('f')] },
      { maxToolCallsPerResponse: 20 },
    );
    expect(result.response.status).toBe('incomplete');
    expect(result.response.output.length).toBeLessThanOrEqual(20);
  });

  test('calls dropped past max_tool_calls count toward the bound too', async () => {
    const { result } = await turnOf(
      () => interleavedCalls(50),
      { tools: [tool('f')], max_tool_calls: 1 },
      { maxToolCallsPerResponse: 20 },
    );
    expect(result.response.status).toBe('incomplete');
    expect(result.response.output).toHaveLength(1);
  });

  test('interleaved calls come out whole and in the order they started (50,000 waiting at once)', async () => {
    const count = 50_000;
    const { result, events } = await turnOf(
      () => interleavedCalls(count),
      { tools: [tool('f')] },
      { maxToolCallsPerResponse: count, maxOutputBytes: 64 * 1024 * 1024 },
    );
    expect(result.response.status).toBe('completed');
    const output = result.response.output as Array<{ call_id: string; arguments: string }>;
    expect(output).toHaveLength(count);
    expect(output.every((call, i) => call.call_id === `call_${i}` && call.arguments === `{"i":${i}}`)).toBe(true);
    // Each call is streamed whole before the next one is added.
    const added = events.filter((e) => e.type === 'response.output_item.added').length;
    expect(added).toBe(count);
  }, 120_000);

  test('cancellation stops the stream between parts and fails the response', async () => {
    const cancellation = new Cancellation();
    let sent = 0;
    const { result } = await turnOf(
      () =>
        (function* (): Iterable<ModelPart> {
          yield { type: 'text-start', id: 't' };
          for (;;) {
            if (++sent === 10) cancellation.cancel('stop now');
            yield { type: 'text-delta', id: 't', delta: 'x' };
          }
        })(),
      {},
      {},
      cancellation,
    );
    expect([result.response.status, result.error?.code, result.response.error?.message]).toEqual([
      'failed',
      'cancelled',
      'stop now',
    ]);
    expect(sent).toBeLessThan(20);
  });
});

describe('the output budget through the gateway, against the hostile upstream', () => {
  let upstream: HostileUpstream;
  let gateway: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    upstream = await startHostileUpstream({ count: 5000, maxBytes: 64 * 1024 * 1024, intervalMs: 5 });
    gateway = await startTestServer({
      limits: { maxOutputBytes: 256 * 1024, maxToolCallsPerResponse: 100 },
      providers: [
        new ChatCompletionsProvider({
          baseUrl: upstream.urlFor('logprob-flood'),
          apiKey: 'k',
          route: { prefix: 'flood/' },
        }),
        new ChatCompletionsProvider({
          baseUrl: upstream.urlFor('many-tool-calls'),
          apiKey: 'k',
          route: { prefix: 'calls/' },
        }),
      ],
    });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  test('a logprob flood ends incomplete at the budget, and the upstream connection is released', async () => {
    const answer = await post(gateway, '/v1/responses', {
      model: 'flood/m',
      input: 'hi',
      include: ['message.output_text.logprobs'],
      stream: true,
    });
    const text = await answer.text();
    expect(answer.status, text.slice(0, 300)).toBe(200);
    const last = JSON.parse(text.slice(text.lastIndexOf('data: {') + 6).split('\n')[0]!) as {
      response: ResponseResource;
    };
    expect([last.response.status, last.response.incomplete_details?.reason]).toEqual([
      'incomplete',
      'max_output_tokens',
    ]);
    // The stream repeats every delta and its logprobs in a done event: a few times the budget, not unbounded.
    expect(text.length).toBeLessThan(8 * 256 * 1024);
    await upstream.waitForConnections(0);
  });

  test('5,000 streamed tool calls end at maxToolCallsPerResponse', async () => {
    const { events, violations } = await stream(gateway, { model: 'calls/m', input: 'hi', tools: [tool('f')] });
    expect(violations).toEqual([]);
    const response = (events.at(-1) as unknown as { response: ResponseResource }).response;
    expect(response.status).toBe('incomplete');
    expect(response.output.length).toBeLessThanOrEqual(100);
  });
});
