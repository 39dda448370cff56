// A MeterProvider registered again (after `metrics.disable()`, as an application or a bench that switches its
// telemetry off and on does) records into the instruments made for it the first time: each metric is one
// family in the own aggregation, holding every value since the first registration, and its gauges are
// registered with the meter once. Two providers in turn (both record into the one own aggregation) share each
// family too.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, expect, test } from 'vitest';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import { METRIC_GEN_AI_SERVER_REQUEST_DURATION } from '../src/telemetry/attributes.js';
import { meterTurn } from '../src/telemetry/metrics.js';

afterAll(() => metrics.disable());

test('a provider registered three times: one set of instruments, every turn in it, the gauges registered once', () => {
  let gauges = 0;
  const meter = { createObservableUpDownCounter: () => ({ addCallback: () => gauges++ }) };
  const provider = { getMeter: () => meter } as unknown as MeterProvider;
  recordOwnMetrics();
  let gaugesOfOne = 0;
  for (let registration = 0; registration < 3; registration++) {
    metrics.disable();
    expect(meterTurn(0, 'stub-model', 'openai', false)).toBeUndefined();
    metrics.setGlobalMeterProvider(provider);
    meterTurn(0, 'stub-model', 'openai', false)!.ended();
    if (registration === 0) gaugesOfOne = gauges;
  }
  const families = ownMetrics()
    .collect()
    .filter((instrument) => instrument.name === METRIC_GEN_AI_SERVER_REQUEST_DURATION);
  expect(families).toHaveLength(1);
  expect(families[0]!.series.map((series) => series.count)).toEqual([3]);
  const names = ownMetrics()
    .collect()
    .map((instrument) => instrument.name);
  expect(new Set(names).size).toBe(names.length);
  expect(gaugesOfOne).toBeGreaterThan(0);
  expect(gauges).toBe(gaugesOfOne);
});

test('two providers in turn: their instruments record into one family of each metric of the own aggregation', () => {
  const meter = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  recordOwnMetrics();
  const before = requestDurations();
  for (const provider of [{ getMeter: () => meter }, { getMeter: () => meter }] as unknown as MeterProvider[]) {
    metrics.disable();
    metrics.setGlobalMeterProvider(provider);
    meterTurn(0, 'other-model', 'openai', false)!.ended();
  }
  const names = ownMetrics()
    .collect()
    .map((instrument) => instrument.name);
  expect(new Set(names).size).toBe(names.length);
  expect(requestDurations() - before).toBe(2);
});

/** The turns counted in every series of gen_ai.server.request.duration. */
const requestDurations = () =>
  ownMetrics()
    .collect()
    .filter((instrument) => instrument.name === METRIC_GEN_AI_SERVER_REQUEST_DURATION)
    .flatMap((instrument) => instrument.series)
    .reduce((turns, series) => turns + series.count, 0);
