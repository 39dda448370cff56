// A streamed answer's `http.server.request.duration` is recorded when its stream has been written, by a watcher
// the stream's own frame tells (handler/middleware.ts's `StreamDuration`, exchange.ts's `WatchedStream`): with
// metrics on, piping a streamed turn makes no more promises than with metrics off, where a frame of its own made
// two more (the frame's, and the one its await makes while promise hooks are on, as here) and a `.finally` with
// its callback four; and the stream's duration is still recorded.
import { createHook } from 'node:async_hooks';
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, expect, test } from 'vitest';
import { createResponsesService, DeterministicModel } from '../src/index.js';
import { ownMetrics, recordOwnMetrics } from '../src/telemetry/aggregation.js';
import { METRIC_HTTP_SERVER_REQUEST_DURATION } from '../src/telemetry/attributes.js';

afterAll(() => metrics.disable());

const service = createResponsesService({ providers: [new DeterministicModel()] });
const body = JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello!', stream: true, store: false });
const promisesOfStreamedTurn = async () => {
  let made = 0;
  const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && made++) });
  hook.enable();
  const answer = await service.handle({
    method: 'POST',
    path: '/v1/responses',
    header: (name) => (name === 'content-type' ? 'application/json' : null),
    text: async () => body,
  });
  if (answer.body === null || typeof answer.body === 'string')
    throw new Error(`not a stream: ${answer.status} ${answer.body}`);
  await answer.body.pipe(() => {});
  hook.disable();
  expect(answer.status).toBe(200);
  return made;
};

const streamDurations = () =>
  ownMetrics()
    .collect()
    .find((instrument) => instrument.name === METRIC_HTTP_SERVER_REQUEST_DURATION)
    ?.series.reduce((count, series) => count + series.count, 0) ?? 0;

test('metrics on make no more promises of a streamed answer, and record its duration', async () => {
  // Warm: what a first turn makes once is not counted.
  await promisesOfStreamedTurn();
  const off = await promisesOfStreamedTurn();
  const gauges = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  metrics.setGlobalMeterProvider({ getMeter: () => gauges } as unknown as MeterProvider);
  recordOwnMetrics();
  await promisesOfStreamedTurn();
  const before = streamDurations();
  const on = await promisesOfStreamedTurn();
  expect(streamDurations()).toBe(before + 1);
  expect(on - off).toBe(0);
});
