// A metered turn (metrics on) reads its parts as an unmetered one does: `startTurn` observes a first part that was
// waited for in its own continuation, with no promise more (src/responses/turn.ts): that promise on every turn made
// V8 pretenure ~80 more of the turn's allocation sites. The turn's stream observes every later part as it reads it
// (turn/stream.ts, turn/part-meter.ts), where a wrapping iterator chained a promise to each part that waited.
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import { expect, test } from 'vitest';
import { DEFAULT_LIMITS } from '../src/limits.js';
import type { ModelPart, ModelProvider } from '../src/models/provider.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { startTurn } from '../src/responses/turn.js';
import { prepareTurn, type TurnDependencies } from '../src/responses/turn/prepare.js';
import type { TurnMeter } from '../src/telemetry/metrics.js';
import { promisesMadeBy } from './promises-made.js';
import { recordingMeter } from './recording-meter.js';

/** A first part that is metered at once (a finish with no output before it). */
const parts: ModelPart[] = [{ type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } }];
/** Parts from an upstream: every read waits (an async generator). */
const provider: ModelProvider = {
  name: 'waiting',
  contextWindow: 1000,
  supports: () => true,
  async *generate() {
    yield* parts;
  },
};
const deps: TurnDependencies = {
  providers: [provider],
  defaultModel: 'waiting',
  loadChain: async () => ({ chain: [] }),
  lookupItem: async () => undefined,
  sealer: createSealer([generateEncryptionKey()]),
  limits: DEFAULT_LIMITS,
};

/** Microtasks until `startTurn` hands over the started turn. */
async function ticksToStart(meter?: TurnMeter): Promise<number> {
  const prepared = await prepareTurn({ model: 'waiting', input: 'hi' }, LATEST_SPEC_VERSION, deps);
  let started = false;
  const starting = Promise.resolve(startTurn(prepared, deps, {}, meter)).then(() => (started = true));
  let ticks = 0;
  while (!started && ticks < 100) {
    await undefined;
    ticks++;
  }
  await starting;
  return ticks;
}

test("a metered turn's first part, waited for, is metered and reaches the turn as soon as an unmetered one's", async () => {
  const { calls, meter } = recordingMeter();
  const metered = await ticksToStart(meter);
  expect(calls).toEqual([['finished', 3, 4, false]]);
  expect(metered).toBe(await ticksToStart());
});

/** Parts of a streamed answer from an upstream, each waited for. */
const streamed: ModelPart[] = [
  { type: 'text-start', id: 'm' },
  { type: 'text-delta', id: 'm', delta: 'Hi' },
  { type: 'text-delta', id: 'm', delta: ' there' },
  { type: 'text-end', id: 'm' },
  { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 2 } },
];
const streaming: ModelProvider = {
  ...provider,
  name: 'streaming',
  generate: async function* () {
    yield* streamed;
  },
};

/** The promises a whole turn of `streaming` makes, started and run (promise hooks on). */
async function promisesOfTurn(meter?: TurnMeter): Promise<number> {
  const streamDeps = { ...deps, providers: [streaming], defaultModel: 'streaming' };
  const prepared = await prepareTurn({ model: 'streaming', input: 'hi' }, LATEST_SPEC_VERSION, streamDeps);
  const { made, result } = await promisesMadeBy(async () => (await startTurn(prepared, streamDeps, {}, meter)).run());
  expect(result.response.status).toBe('completed');
  return made;
}

test("a metered turn's later parts are metered as the turn reads them, with no promise more than an unmetered turn's", async () => {
  const { calls, meter } = recordingMeter();
  await promisesOfTurn(); // the first turn's one-time work
  const metered = await promisesOfTurn(meter);
  expect(calls).toEqual([['firstOutput'], ['finished', 3, 2, false]]);
  expect(metered).toBe(await promisesOfTurn());
});
