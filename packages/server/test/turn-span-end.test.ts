// A traced turn's span is ended where the runner notes the turn's end (service/telemetry.ts's `turnNotes`), not by
// promise callbacks of its own: without an application's context manager or content capture, the instrumented
// runner's `begin` answers the runner's own promise, and the span still ends with what the turn told, or its failure.
import { type Attributes, type Span, SpanStatusCode, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { TurnOptions, TurnOutcome, TurnRunner } from '../src/responses/runner.js';
import { instrumentRunner, turnNotes } from '../src/service/telemetry.js';
import type { TurnFacts } from '../src/telemetry/attributes.js';

/** What a span was told: its attributes set after the start, its status, whether it ended. */
interface Told {
  name: string;
  attributes: Attributes;
  status: SpanStatusCode;
  ended: number;
}
const told: Told[] = [];
const recordingTracer = {
  startSpan: (name: string): Span => {
    const record: Told = { name, attributes: {}, status: SpanStatusCode.UNSET, ended: 0 };
    told.push(record);
    const span = trace.wrapSpanContext({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: told.length.toString(16).padStart(16, '0'),
      traceFlags: TraceFlags.SAMPLED,
    });
    return Object.assign(span, {
      isRecording: () => record.ended === 0,
      setAttribute(key: string, value: Attributes[string]) {
        record.attributes[key] = value;
        return this;
      },
      setStatus(status: { code: SpanStatusCode }) {
        record.status = status.code;
        return this;
      },
      recordException: () => undefined,
      end: () => {
        record.ended++;
      },
    });
  },
} as unknown as Tracer;

beforeAll(() => {
  trace.setGlobalTracerProvider({ getTracer: () => recordingTracer });
});
afterAll(() => {
  trace.disable();
});

const notes = turnNotes([]);
const response = {
  id: 'resp_1',
  model: 'model-a',
  status: 'completed',
  output: [],
  usage: { input_tokens: 3, output_tokens: 5 },
} as unknown as ResponseResource;

/** A runner that notes its turns' ends as the real one does (`notes.ended`, `notes.failed`), its `begin` promise kept. */
function notingRunner(fails: boolean) {
  const runner = {
    begun: undefined as Promise<unknown> | undefined,
    begin(_raw: unknown, options: TurnOptions) {
      const facts = options.facts as TurnFacts;
      if (fails) {
        notes.failed(facts, new Error('no upstream'));
        this.begun = Promise.reject(new Error('no upstream'));
      } else
        this.begun = Promise.resolve(async () => {
          const outcome = { response } as TurnOutcome;
          notes.ended(facts, outcome);
          return outcome;
        });
      return this.begun;
    },
  };
  return runner;
}

test("a traced turn's begin is the runner's own promise; its span ends as the runner notes the turn's end", async () => {
  told.length = 0;
  const runner = notingRunner(false);
  const traced = instrumentRunner(runner as unknown as TurnRunner, { providers: [], defaultModel: 'model-a' });
  const begun = traced.begin({ model: 'model-a' }, { facts: {} } as TurnOptions, false);
  expect(begun).toBe(runner.begun);
  const run = await begun;
  expect(told.map((span) => span.ended)).toEqual([0]);
  await run(undefined);
  expect(told).toEqual([
    {
      name: 'chat model-a',
      attributes: {
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.response.model': 'model-a',
        'gen_ai.response.id': 'resp_1',
        'gen_ai.usage.input_tokens': 3,
        'gen_ai.usage.output_tokens': 5,
      },
      status: SpanStatusCode.UNSET,
      ended: 1,
    },
  ]);
});

test('a traced turn that fails as it begins ends its span once, failed, where the runner notes it', async () => {
  told.length = 0;
  const runner = notingRunner(true);
  const traced = instrumentRunner(runner as unknown as TurnRunner, { providers: [], defaultModel: 'model-a' });
  await expect(traced.begin({ model: 'model-a' }, { facts: {} } as TurnOptions, false)).rejects.toThrow('no upstream');
  expect(told).toEqual([
    { name: 'chat model-a', attributes: { 'error.type': 'Error' }, status: SpanStatusCode.ERROR, ended: 1 },
  ]);
});
