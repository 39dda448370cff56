// The clock reads metrics add to a turn (~65 ns each): an answer's overhead and its duration share one read,
// and a turn's meter checks its model names' age against the turn's start, not a read of its own. The clock is
// a counter here, so each read is told apart from the others.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { httpMetrics } from '../src/handler/middleware.js';
import type { ServiceRequest, ServiceResponse } from '../src/exchange.js';
import type { ModelPart } from '../src/models/provider.js';
import { PartMeter } from '../src/responses/turn/part-meter.js';
import type { PartIterator } from '../src/responses/turn/parts.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import {
  ATTR_GEN_AI_REQUEST_MODEL,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  METRIC_OPENRESPONSES_OVERHEAD_DURATION,
} from '../src/telemetry/attributes.js';
import { meterTurn } from '../src/telemetry/metrics.js';
import { ModelLabels } from '../src/telemetry/model-labels.js';
import { recordingMeter } from './recording-meter.js';

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

const sumOf = (name: string) =>
  ownMetrics()
    .collect()
    .find((instrument) => instrument.name === name)?.series[0]?.sum;

test("a turn's JSON answer: its overhead and its duration end at the same clock read", () => {
  const request = {
    method: 'POST',
    path: '/v1/responses',
    route: '/v1/responses',
    turn: {},
  } as unknown as ServiceRequest;
  const response: ServiceResponse = { status: 200, headers: {}, body: '{}' };
  const before = reads;
  httpMetrics().answered(request, response, 0);
  expect(reads - before).toBe(1);
  expect(sumOf(METRIC_OPENRESPONSES_OVERHEAD_DURATION)).toBe(sumOf(METRIC_HTTP_SERVER_REQUEST_DURATION));
  expect(Number(response.headers['openresponses-overhead-duration-ms'])).toBe(before + 1);
});

test("a turn's meter reads the clock at its first output and its end only, its model names asked at its start", () => {
  let asked = 0;
  const labels = new ModelLabels(() => {
    asked++;
    return [['openresponses-deterministic']];
  });
  const before = reads;
  const meter = meterTurn(reads, 'openresponses-deterministic', 'openresponses', false, labels);
  meter!.firstOutput();
  meter!.ended();
  expect(asked).toBe(1);
  // The names' answer, which sets their age with a read of its own, comes later (a promise).
  expect(reads - before).toBe(2);
});

test('names a provider lists at once label the turn that asked for them, even one that ends before any promise settles', async () => {
  let answer!: (names: readonly string[]) => void;
  const labels = new ModelLabels(() => [['openresponses-deterministic'], new Promise((resolve) => (answer = resolve))]);
  labels.refresh(0);
  // A turn that runs through without waiting (the embedded model into the memory store) ends here.
  expect(labels.label('openresponses-deterministic')).toBe('openresponses-deterministic');
  expect(labels.label('upstream-model')).toBe('_OTHER');
  answer(['upstream-model']);
  await new Promise((resolve) => setImmediate(resolve));
  expect(labels.label('upstream-model')).toBe('upstream-model');
});

// A turn's first output and its finish share one clock read when they came together: an upstream's JSON answer
// is one batch of parts after the call's wait, so the call's end is the first output's time. Parts that waited
// between them read the clock at the finish, as before.
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

/** Reads every part, as a turn does, showing each to `meter` as it arrives. */
async function drain(iterator: PartIterator, meter: PartMeter): Promise<void> {
  for (;;) {
    const next = iterator.next();
    if ((next instanceof Promise ? meter.observedAfterWait(await next) : meter.observed(next)).done) return;
  }
}

function heard(list: ModelPart[], waits: boolean[]) {
  const { calls, meter } = recordingMeter();
  return drain(parts(list, waits), new PartMeter(meter)).then(() => calls);
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
  const series = operation.series.find((s) => s.attributes[ATTR_GEN_AI_REQUEST_MODEL] === 'stub-model')!;
  // From the call's start (startedAt + 1) to the first output.
  expect(series.sum).toBe((firstAt - (startedAt + 1)) / 1000);
});
