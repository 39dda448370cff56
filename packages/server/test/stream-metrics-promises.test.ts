// A streamed answer's `http.server.request.duration` is recorded when its stream has been written, by a watcher
// the stream's own frame tells (handler/middleware.ts's `StreamDuration`, exchange.ts's `WatchedStream`): with
// metrics on, piping a streamed turn makes no more promises than with metrics off, where a frame of its own made
// two more (the frame's, and the one its await makes while promise hooks are on, as here) and a `.finally` with
// its callback four; and the stream's duration is still recorded.
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, expect, test } from 'vitest';
import { createResponsesService, DeterministicModel } from '../src/index.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import { METRIC_HTTP_SERVER_REQUEST_DURATION } from '../src/telemetry/attributes.js';
import { promisesOfStreamedTurn } from './promises-made.js';

afterAll(() => metrics.disable());

const service = createResponsesService({ providers: [new DeterministicModel()] });
const promisesOfTurn = () => promisesOfStreamedTurn(service);

const streamDurations = () =>
  ownMetrics()
    .collect()
    .find((instrument) => instrument.name === METRIC_HTTP_SERVER_REQUEST_DURATION)
    ?.series.reduce((count, series) => count + series.count, 0) ?? 0;

test('metrics on make no more promises of a streamed answer, and record its duration', async () => {
  // Warm: what a first turn makes once is not counted.
  await promisesOfTurn();
  const off = await promisesOfTurn();
  const gauges = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  metrics.setGlobalMeterProvider({ getMeter: () => gauges } as unknown as MeterProvider);
  recordOwnMetrics();
  await promisesOfTurn();
  const before = streamDurations();
  const on = await promisesOfTurn();
  expect(streamDurations()).toBe(before + 1);
  expect(on - off).toBe(0);
});
