// A turn's first output and its finish share one clock read when they came together: an upstream's JSON answer
// is one batch of parts after the call's wait, so the call's end is the first output's time (one read of ~130
// instructions fewer a gateway JSON turn). Parts that waited between them read the clock at the finish, as before.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { ModelPart } from '../src/models/provider.js';
import { MeteredParts } from '../src/responses/turn.js';
import type { PartIterator } from '../src/responses/turn/parts.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import { METRIC_GEN_AI_CLIENT_OPERATION_DURATION } from '../src/telemetry/attributes.js';
import { meterTurn, type TurnMeter } from '../src/telemetry/metrics.js';

let reads = 0;
beforeAll(() => {
  // A provider whose histograms and counters are the own aggregation's (its gauges are never read here).
  const gauges = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  metrics.setGlobalMeterProvider({ getMeter: () => gauges } as unknown as MeterProvider);
  recordOwnMetrics();
  // Each read 1 ms after the one before.
  vi.spyOn(performance, 'now').mockImplementation(() => ++reads);
});
afterAll(() => {
  vi.restoreAllMocks();
  metrics.disable();
});

const start: ModelPart = { type: 'text-start', id: 'm' } as ModelPart;
const delta: ModelPart = { type: 'text-delta', id: 'm', delta: 'Hi' } as ModelPart;
const finish: ModelPart = { type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } } as ModelPart;

/** Parts read as an upstream's are: `waits[i]` says whether part i came after a wait (a promise). */
function parts(list: ModelPart[], waits: boolean[]): PartIterator {
  let i = 0;
  return {
    next: () => {
      const result: IteratorResult<ModelPart> =
        i < list.length ? { done: false, value: list[i]! } : { done: true, value: undefined };
      return waits[i++] ? Promise.resolve(result) : result;
    },
  };
}

/** Reads every part, as a turn does. */
async function drain(iterator: PartIterator): Promise<void> {
  for (;;) {
    const next = iterator.next();
    if ((next instanceof Promise ? await next : next).done) return;
  }
}

function heard(list: ModelPart[], waits: boolean[]) {
  const calls: unknown[][] = [];
  const meter: TurnMeter = {
    firstOutput: () => calls.push(['firstOutput']),
    finished: (...args) => calls.push(['finished', ...args]),
    ended: () => {},
  };
  return drain(new MeteredParts(parts(list, waits), meter)).then(() => calls);
}

test('a finish that came in the batch of the first output is told so; one after a wait, or without output, is not', async () => {
  expect(await heard([start, delta, finish], [true, false, false])).toEqual([
    ['firstOutput'],
    ['finished', 3, 4, true],
  ]);
  expect(await heard([start, delta, delta, finish], [true, false, true, false])).toEqual([
    ['firstOutput'],
    ['finished', 3, 4, false],
  ]);
  expect(await heard([start, finish], [true, false])).toEqual([['finished', 3, 4, false]]);
});

test("a client turn's finish that came with its first output reads no clock: its upstream call ends at the first output", () => {
  const startedAt = reads;
  const meter = meterTurn(startedAt, 'stub-model', 'openai', false)!;
  // The meter's own reads: its upstream call's start, the first output.
  expect(reads - startedAt).toBe(1);
  meter.firstOutput();
  const firstAt = reads;
  meter.finished(3, 4, true);
  expect(reads).toBe(firstAt);
  meter.ended();
  const operation = ownMetrics()
    .collect()
    .find((instrument) => instrument.name === METRIC_GEN_AI_CLIENT_OPERATION_DURATION)!;
  // From the call's start (startedAt + 1) to the first output.
  expect(operation.series[0]!.sum).toBe((firstAt - (startedAt + 1)) / 1000);
});
