// A turn nobody watches (a JSON answer) runs the events writer without a listener, so it builds no event
// objects. Differential: for random part sequences (text with logprobs and annotations, refusals, reasoning
// with summaries and sealed state, tool calls allowed or not, vendor items and events, several lanes at once,
// every ending, cancellation, max_tool_calls, output budgets) the unwatched turn answers the response the
// watched one does, byte for byte (ids and sealed text, which are random per turn, numbered in order).
import type { AnyStreamingEvent } from '@openresponses/events';
import { createAccumulator } from '@openresponses/events';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Cancellation } from '../src/cancellation.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/limits.js';
import type { ModelPart, ModelProvider } from '../src/models/provider.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { runTurn } from '../src/responses/turn.js';
import { prepareTurn, type TurnDependencies } from '../src/responses/turn/prepare.js';

const text = fc.string({ maxLength: 8 });
const logprob = fc.record({
  token: text,
  logprob: fc.double({ min: -20, max: 0, noNaN: true }),
  bytes: fc.array(fc.nat(255), { maxLength: 3 }),
  top_logprobs: fc.array(
    fc.record({ token: text, logprob: fc.constant(-1), bytes: fc.array(fc.nat(255), { maxLength: 2 }) }),
    {
      maxLength: 1,
    },
  ),
});
const annotation = fc.record({
  type: fc.constant('url_citation' as const),
  start_index: fc.nat(5),
  end_index: fc.nat(5),
  url: fc.constant('https://example.test/a'),
  title: text,
});

/** One output item's parts, in its own order (the lanes are interleaved afterwards). */
const lane = fc.oneof(
  fc.record({
    kind: fc.constant('message' as const),
    phase: fc.constantFrom(undefined, 'commentary' as const, 'final_answer' as const),
    steps: fc.array(
      fc.oneof(
        fc.record({ delta: text, logprobs: fc.option(fc.array(logprob, { maxLength: 2 }), { nil: undefined }) }),
        fc.record({ annotation }),
        fc.record({ nextPart: fc.constantFrom('text' as const, 'refusal' as const) }),
      ),
      { maxLength: 5 },
    ),
    ends: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('refusal' as const), deltas: fc.array(text, { maxLength: 3 }), ends: fc.boolean() }),
  fc.record({
    kind: fc.constant('reasoning' as const),
    steps: fc.array(
      fc.constantFrom('summary-start' as const, 'summary-delta' as const, 'summary-end' as const, 'delta' as const),
      { maxLength: 6 },
    ),
    state: fc.boolean(),
    ends: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('call' as const),
    name: fc.constantFrom('f', 'g', 'not_declared'),
    deltas: fc.array(text, { maxLength: 3 }),
    ends: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('item' as const), withId: fc.boolean(), data: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('vendor event' as const), step: fc.nat(9) }),
);
type Lane = typeof lane extends fc.Arbitrary<infer T> ? T : never;

function partsOf(spec: Lane, id: string): ModelPart[] {
  switch (spec.kind) {
    case 'message': {
      const parts: ModelPart[] = [{ type: 'text-start', id, ...(spec.phase ? { phase: spec.phase } : {}) }];
      for (const step of spec.steps) {
        if ('delta' in step)
          parts.push({
            type: 'text-delta',
            id,
            delta: step.delta,
            ...(step.logprobs ? { logprobs: step.logprobs } : {}),
          });
        else if ('annotation' in step) parts.push({ type: 'text-annotation', id, annotation: step.annotation });
        else parts.push({ type: 'message-part-start', id, kind: step.nextPart });
      }
      if (spec.ends) parts.push({ type: 'text-end', id });
      return parts;
    }
    case 'refusal':
      return [
        { type: 'refusal-start', id },
        ...spec.deltas.map((delta): ModelPart => ({ type: 'refusal-delta', id, delta })),
        ...(spec.ends ? [{ type: 'refusal-end', id } as const] : []),
      ];
    case 'reasoning': {
      const parts: ModelPart[] = [{ type: 'reasoning-start', id }];
      for (const step of spec.steps) {
        if (step === 'summary-start') parts.push({ type: 'reasoning-summary-start', id });
        else if (step === 'summary-delta')
          parts.push({ type: 'reasoning-summary-delta', id, delta: `s${parts.length}` });
        else if (step === 'summary-end') parts.push({ type: 'reasoning-summary-end', id });
        else parts.push({ type: 'reasoning-delta', id, delta: `r${parts.length}` });
      }
      if (spec.ends)
        parts.push({
          type: 'reasoning-end',
          id,
          ...(spec.state ? { state: { provider: 'scripted', signature: id } } : {}),
        });
      return parts;
    }
    case 'call':
      return [
        { type: 'function-call-start', id, name: spec.name, callId: `call_${id}` },
        ...spec.deltas.map((delta): ModelPart => ({ type: 'function-call-delta', id, delta })),
        ...(spec.ends ? [{ type: 'function-call-end', id } as const] : []),
      ];
    case 'item':
      return [
        { type: 'item', item: { type: 'acme:note', ...(spec.withId ? { id: `note_${id}` } : {}), data: spec.data } },
      ];
    case 'vendor event':
      return [{ type: 'vendor-event', event: { type: 'acme:progress', step: spec.step } }];
  }
}

const scenario = fc.record({
  lanes: fc.array(lane, { maxLength: 5 }),
  /** Which lane each next part comes from (the lanes interleave, each in its own order). */
  order: fc.array(fc.nat(), { maxLength: 60 }),
  ending: fc.constantFrom(
    'stop' as const,
    'length' as const,
    'content_filter' as const,
    'error' as const,
    'error part' as const,
    'nothing' as const,
    'throw' as const,
  ),
  /** Cancels the turn when this part is read. */
  cancelAt: fc.option(fc.nat(40), { nil: undefined }),
  sync: fc.boolean(),
  body: fc.record({
    store: fc.boolean(),
    max_tool_calls: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    tool_choice: fc.constantFrom(undefined, 'required' as const, 'auto' as const),
    include: fc.subarray(['message.output_text.logprobs', 'reasoning.encrypted_content']),
  }),
  limits: fc.record({
    maxOutputBytes: fc.constantFrom(DEFAULT_LIMITS.maxOutputBytes, 300, 1500),
    maxToolCallsPerResponse: fc.constantFrom(DEFAULT_LIMITS.maxToolCallsPerResponse, 2),
  }),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The scenario's parts: the lanes interleaved as `order` says, then its ending. */
function script(s: Scenario): ModelPart[] {
  const queues = s.lanes.map((spec, i) => partsOf(spec, `i${i}`));
  const parts: ModelPart[] = [];
  for (const pick of s.order) {
    const open = queues.filter((queue) => queue.length > 0);
    if (open.length === 0) break;
    parts.push(open[pick % open.length]!.shift()!);
  }
  for (const queue of queues) parts.push(...queue);
  const usage = { inputTokens: 3, outputTokens: 7, reasoningTokens: 2 };
  if (s.ending === 'error part') parts.push({ type: 'error', code: 'model_failed', message: 'scripted failure' });
  else if (s.ending !== 'nothing' && s.ending !== 'throw') parts.push({ type: 'finish', reason: s.ending, usage });
  return parts;
}

const sealer = createSealer([generateEncryptionKey()]);

/** Runs the scenario's turn, watched (its events collected) or not; the clock is fixed. */
async function run(s: Scenario, watched: boolean) {
  const parts = script(s);
  const cancellation = new Cancellation();
  function* emitted(): Generator<ModelPart> {
    for (let i = 0; i < parts.length; i++) {
      if (i === s.cancelAt) cancellation.cancel('stopped by the test');
      yield parts[i]!;
    }
    if (s.ending === 'throw') throw new Error('the upstream went away');
  }
  const provider: ModelProvider = {
    name: 'scripted',
    contextWindow: 100_000,
    reportsLogprobs: true,
    supports: (model) => model === 'scripted',
    generate: () => {
      if (s.sync) return emitted() as unknown as AsyncIterable<ModelPart>;
      return (async function* () {
        yield* emitted();
      })();
    },
  };
  const deps: TurnDependencies = {
    providers: [provider],
    defaultModel: 'scripted',
    loadChain: async () => ({ chain: [] }),
    lookupItem: async () => undefined,
    sealer,
    limits: { ...DEFAULT_LIMITS, ...s.limits } as ServerLimits,
  };
  const tools = ['f', 'g'].map((name) => ({ type: 'function', name, parameters: { type: 'object' } }));
  const body = Object.fromEntries(Object.entries(s.body).filter(([, value]) => value !== undefined));
  const prepared = await prepareTurn({ model: 'scripted', input: 'hi', tools, ...body }, LATEST_SPEC_VERSION, deps);
  const events: AnyStreamingEvent[] = [];
  const result = await runTurn(prepared, deps, {
    onEvent: watched ? (event) => events.push(event) : undefined,
    cancellation,
    now: () => 1_769_990_500,
  });
  return { result, events };
}

/** The response's JSON with what is random per turn (ids, sealed text) numbered in order of appearance. */
function stable(value: unknown): string {
  const seen = new Map<string, string>();
  const number = (random: string) => {
    if (!seen.has(random)) seen.set(random, `#${seen.size}`);
    return seen.get(random)!;
  };
  return JSON.stringify(value)
    .replace(/"encrypted_content":"[^"]*"/g, (match) => `"encrypted_content":"${number(match)}"`)
    .replace(/\b[a-z]+_[0-9a-f]{32}\b/g, number);
}

describe('a turn nobody watches', () => {
  test('answers the response a watched turn does, byte for byte, for any parts and any ending', async () => {
    const statuses = new Set<string>();
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const watched = await run(s, true);
        const unwatched = await run(s, false);
        expect(stable(unwatched.result.response)).toBe(stable(watched.result.response));
        expect(unwatched.result.error?.code).toBe(watched.result.error?.code);
        expect(unwatched.result.error?.message).toBe(watched.result.error?.message);
        // The watched turn's response is what its events build (so both are what a streaming client sees).
        const accumulator = createAccumulator();
        for (const event of watched.events) accumulator.push(event);
        expect(JSON.stringify(accumulator.response)).toBe(JSON.stringify(watched.result.response));
        statuses.add(`${watched.result.response.status}:${watched.result.error?.code ?? ''}`);
      }),
      { numRuns: 300, seed: 3535 },
    );
    // The scenarios reach every way a turn ends.
    for (const ending of [
      'completed:',
      'incomplete:',
      'failed:model_failed',
      'failed:cancelled',
      'failed:tool_not_allowed',
      'failed:model_stream_ended',
    ])
      expect(statuses).toContain(ending);
  }, 60_000);
});
