// A request's server span starts and ends in the frame the answer stages share (service/telemetry.ts's
// `serverSpans`), not in a middleware of its own: a traced request makes no more promises than an untraced one
// (its `.then` and callbacks were a promise and a microtask more per traced request), and its span still ends
// with the answer's route and status.
import { type Attributes, type Span, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import { afterEach, expect, test } from 'vitest';
import { createResponsesService, DeterministicModel } from '../src/index.js';
import { promisesMadeBy, promisesOfStreamedTurn } from './promises-made.js';

const ended: Array<{ name: string; attributes: Attributes }> = [];
const recordingTracer = {
  startSpan: (name: string, options?: { attributes?: Attributes }): Span => {
    const record = { name, attributes: { ...options?.attributes } };
    let open = true;
    const span = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
    });
    return Object.assign(span, {
      isRecording: () => open,
      setAttribute(key: string, value: Attributes[string]) {
        record.attributes[key] = value;
        return this;
      },
      updateName(next: string) {
        record.name = next;
        return this;
      },
      end: () => {
        open = false;
        ended.push(record);
      },
    });
  },
} as unknown as Tracer;
afterEach(() => trace.disable());

/**
 * `count` untraced, then with `recordingTracer` registered, each after a run whose one-time work is not counted;
 * `ended` then holds the spans of the counted traced run only.
 */
async function untracedThenTraced(count: () => Promise<number>): Promise<{ untraced: number; traced: number }> {
  await count();
  const untraced = await count();
  trace.setGlobalTracerProvider({ getTracer: () => recordingTracer });
  await count();
  ended.length = 0;
  return { untraced, traced: await count() };
}

test('a traced request makes no more promises than an untraced one, and its span ends with the answer', async () => {
  const service = createResponsesService({ providers: [new DeterministicModel()] });
  const request = () => ({ method: 'GET', path: '/v1/models', header: () => null, text: async () => '' });
  const promisesOfRequest = async () => {
    const { made, result: answer } = await promisesMadeBy(() => service.handle(request()));
    expect(answer.status).toBe(200);
    return made;
  };
  const { untraced, traced } = await untracedThenTraced(promisesOfRequest);
  expect(ended).toEqual([
    {
      name: 'GET /v1/models',
      attributes: expect.objectContaining({ 'http.route': '/v1/models', 'http.response.status_code': 200 }),
    },
  ]);
  expect(traced).toBe(untraced);
});

test('a traced streamed turn makes no more promises than an untraced one, and its span ends with the stream', async () => {
  const service = createResponsesService({ providers: [new DeterministicModel()] });
  // The server span has not ended when the answer is handed over, only once its stream has been written.
  const promisesOfTurn = () =>
    promisesOfStreamedTurn(service, () => expect(ended.some((span) => span.name === 'POST /v1/responses')).toBe(false));
  const { untraced, traced } = await untracedThenTraced(promisesOfTurn);
  expect(ended.filter((span) => span.name === 'POST /v1/responses')).toEqual([
    {
      name: 'POST /v1/responses',
      attributes: expect.objectContaining({ 'http.route': '/v1/responses', 'http.response.status_code': 200 }),
    },
  ]);
  expect(traced).toBe(untraced);
});
