// The usage a turn reports when it ends before its provider's `finish` (a failure, the output cap,
// cancellation): the output tokens of the deltas it received so far, each delta counted as it came.
import type { ModelPart, ModelProvider } from '../src/models/provider.js';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import { describe, expect, test } from 'vitest';
import { Cancellation } from '../src/cancellation.js';
import { DEFAULT_LIMITS, type ServerLimits } from '../src/limits.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { runTurn } from '../src/responses/turn.js';
import { prepareTurn, type TurnDependencies } from '../src/responses/turn/prepare.js';

/** A provider answering `parts`, synchronously or not. */
const providerOf = (parts: () => Iterable<ModelPart>, sync: boolean): ModelProvider => ({
  name: 'scripted',
  contextWindow: 1000,
  supports: (model) => model === 'scripted',
  generate: () =>
    sync
      ? ({
          [Symbol.iterator]: () => parts()[Symbol.iterator](),
          [Symbol.asyncIterator]: () => {
            throw new Error('read synchronously');
          },
        } as AsyncIterable<ModelPart> & Iterable<ModelPart>)
      : (async function* () {
          yield* parts();
        })(),
});

async function usageOf(parts: () => Iterable<ModelPart>, sync: boolean, limits: Partial<ServerLimits> = {}) {
  const deps: TurnDependencies = {
    providers: [providerOf(parts, sync)],
    defaultModel: 'scripted',
    loadChain: async () => ({ chain: [] }),
    lookupItem: async () => undefined,
    sealer: createSealer([generateEncryptionKey()]),
    limits: { ...DEFAULT_LIMITS, ...limits },
  };
  const cancellation = new Cancellation();
  const prepared = await prepareTurn({ model: 'scripted', input: 'hi' }, LATEST_SPEC_VERSION, deps);
  const result = await runTurn(prepared, deps, {
    cancellation,
    onEvent: (event) => {
      // Cancelled once the third delta is out.
      if (event.type === 'response.output_text.delta' && event.delta === 'cancel here') cancellation.cancel();
    },
  });
  return { status: result.response.status, usage: result.response.usage };
}

const start: ModelPart = { type: 'text-start', id: 't' };
const delta = (text: string): ModelPart => ({ type: 'text-delta', id: 't', delta: text });

describe('a turn that ends before its finish reports the tokens of the deltas it received', () => {
  for (const sync of [true, false])
    describe(sync ? 'parts read synchronously' : 'parts read asynchronously', () => {
      test('a model failure after three deltas (a word split across two of them counts twice)', async () => {
        const { status, usage } = await usageOf(
          () => [start, delta('one two '), delta('thr'), delta('ee four'), { type: 'error', code: 'x', message: 'y' }],
          sync,
        );
        expect(status).toBe('failed');
        expect(usage?.output_tokens).toBe(5);
        expect(usage?.total_tokens).toBe(usage!.input_tokens + 5);
      });

      test('the output cap: every delta charged counts, the one over the cap too', async () => {
        const { status, usage } = await usageOf(
          () => [start, ...Array.from({ length: 100 }, () => delta('aa bb cc dd ee ff gg')), delta('end')],
          sync,
          { maxOutputBytes: 1000 },
        );
        expect(status).toBe('incomplete');
        // 20 bytes a delta: the 50th leaves 1,000 minus the start's share, so the cap falls inside the run.
        expect(usage!.output_tokens % 7).toBe(0);
        expect(usage!.output_tokens).toBeGreaterThan(7 * 40);
        expect(usage!.output_tokens).toBeLessThanOrEqual(7 * 50);
      });

      test('cancellation after three deltas', async () => {
        const { status, usage } = await usageOf(
          () => [
            start,
            delta('a b'),
            delta(' c'),
            delta('cancel here'),
            delta('never read'),
            { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 99 } },
          ],
          sync,
        );
        expect(status).toBe('failed');
        expect(usage?.output_tokens).toBe(5);
      });
    });
});
