// The clock reads metrics add to a turn (~65 ns each): an answer's overhead and its duration share one read,
// and a turn's meter checks its model names' age against the turn's start, not a read of its own. The clock is
// a counter here, so each read is told apart from the others.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { httpMetrics } from '../src/handler/middleware.js';
import type { ServiceRequest, ServiceResponse } from '../src/exchange.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import {
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  METRIC_OPENRESPONSES_OVERHEAD_DURATION,
} from '../src/telemetry/attributes.js';
import { meterTurn } from '../src/telemetry/metrics.js';
import { ModelLabels } from '../src/telemetry/model-labels.js';

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
