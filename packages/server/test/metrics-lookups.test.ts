// What a turn's metrics look up once their series exist: a gateway turn records seven values (its durations,
// times and two token usages) and its answer two more, and a turn like the last one finds all of their attribute
// sets and series without a Map or WeakMap lookup (the sets of one provider and model are made together; an
// instrument keeps its last two series, so input and output token usage in turn find theirs), and reads the clock
// through the `performance` object kept at import, not the global (on Node a getter that runs on every read).
// Each turn's model name is a string of its own, as one parsed from its request is: the last one's label is
// found without hashing it again (no Set lookup), and so is the last request method's reported name (asked
// for the request's span name and for its metrics).
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { ServiceRequest, ServiceResponse } from '../src/exchange.js';
import { httpMetrics } from '../src/handler/middleware.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import { METRIC_GEN_AI_CLIENT_TOKEN_USAGE } from '../src/telemetry/attributes.js';
import { meterTurn } from '../src/telemetry/metrics.js';
import { ModelLabels } from '../src/telemetry/model-labels.js';
import { httpSpanName } from '../src/telemetry/attributes.js';

beforeAll(() => {
  // A provider whose histograms and counters are the own aggregation's (its gauges are never read here).
  const gauges = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  metrics.setGlobalMeterProvider({ getMeter: () => gauges } as unknown as MeterProvider);
  recordOwnMetrics();
});
afterAll(() => metrics.disable());

const labels = new ModelLabels(() => [['upstream-model']]);
const stage = httpMetrics();

/** A new string each call, as a request's parsed JSON makes one (a literal is the same interned string each time). */
const parsedName = (name: string) => JSON.parse(JSON.stringify(name)) as string;

/** One gateway JSON turn's metrics: its request's span name (asked even when its trace is sampled out), its meter, its answer's. */
function gatewayTurn(): void {
  httpSpanName(parsedName('POST'));
  const meter = meterTurn(0, parsedName('upstream-model'), 'openai', true, labels)!;
  meter.firstOutput();
  meter.finished(12, 30);
  meter.ended();
  const request = {
    method: parsedName('POST'),
    path: '/v1/responses',
    route: '/v1/responses',
    turn: {},
  } as ServiceRequest;
  const response: ServiceResponse = { status: 200, headers: {}, body: '{}' };
  stage.answered(request, response, 0);
}

test("a turn like the last one finds its metrics' attribute sets, series and model label without a Map, WeakMap or Set lookup", () => {
  gatewayTurn();
  const mapGet = vi.spyOn(Map.prototype, 'get');
  const weakMapGet = vi.spyOn(WeakMap.prototype, 'get');
  const setHas = vi.spyOn(Set.prototype, 'has');
  let lookups: number[];
  try {
    gatewayTurn();
    gatewayTurn();
    // Counted before anything else runs (expect itself may look things up).
    lookups = [mapGet.mock.calls.length, weakMapGet.mock.calls.length, setHas.mock.calls.length];
  } finally {
    mapGet.mockRestore();
    weakMapGet.mockRestore();
    setHas.mockRestore();
  }
  expect(lookups).toEqual([0, 0, 0]);
  // The values still went to their own series: input and output token usage apart, three turns each.
  const usage = ownMetrics()
    .collect()
    .find((instrument) => instrument.name === METRIC_GEN_AI_CLIENT_TOKEN_USAGE)!;
  const byType = Object.fromEntries(
    usage.series.map((series) => [series.attributes['gen_ai.token.type'], [series.count, series.sum]]),
  );
  expect(byType).toEqual({ input: [3, 36], output: [3, 90] });
});

test("a turn's metrics read the clock without reading the `performance` global (a getter run on every read on Node)", () => {
  gatewayTurn();
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'performance')!;
  const performanceObject = globalThis.performance;
  let globalReads = 0;
  Object.defineProperty(globalThis, 'performance', {
    configurable: true,
    get: () => {
      globalReads++;
      return performanceObject;
    },
  });
  try {
    gatewayTurn();
  } finally {
    Object.defineProperty(globalThis, 'performance', descriptor);
  }
  expect(globalReads).toBe(0);
});

test('the last label asked for is asked again once the listed names are replaced: a name no longer listed is `_OTHER`', async () => {
  let listed = ['old-model'];
  const replaced = new ModelLabels(() => [listed], 0);
  replaced.refresh(0);
  await new Promise((resolve) => setImmediate(resolve));
  expect(replaced.label(parsedName('old-model'))).toBe('old-model');
  listed = ['new-model'];
  replaced.refresh(Number.MAX_SAFE_INTEGER);
  // Asked while the new listing is counted beside the old one (every listing has not answered yet).
  expect(replaced.label(parsedName('old-model'))).toBe('old-model');
  await new Promise((resolve) => setImmediate(resolve));
  expect([replaced.label(parsedName('old-model')), replaced.label(parsedName('new-model'))]).toEqual([
    '_OTHER',
    'new-model',
  ]);
});
