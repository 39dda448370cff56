// The contexts our spans are made current in (telemetry/tracing.ts builds them without the API's copy of the
// parent's map) behave as the API's own: under an application's context manager, its instrumentation inside
// `within` nests under our span; what others put in a context (baggage) survives our spans; a deleted span
// reads as none.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Context,
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { TurnOptions, TurnRunner } from '../src/responses/runner.js';
import { instrumentRunner } from '../src/service/telemetry.js';
import { httpServerStart } from '../src/telemetry/attributes.js';
import { endSpan, startChildSpan, startServerSpan, within } from '../src/telemetry/tracing.js';

/** Each span started: its ids and its parent's, as read from the context it was started in. */
const started = new Map<string, { spanId: string; traceId: string; parentSpanId: string | undefined }>();
/** A tracer whose spans say they record, with their parents read from the context given, else the active one. */
const recordingTracer: Tracer = {
  startSpan: (name, _options, parentContext = context.active()): Span => {
    const parent = trace.getSpan(parentContext)?.spanContext();
    const spanId = (started.size + 1).toString(16).padStart(16, '0');
    const traceId = parent?.traceId ?? '0af7651916cd43dd8448eb211c80319c';
    started.set(name, { spanId, traceId, parentSpanId: parent?.spanId });
    return Object.assign(trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.SAMPLED }), {
      isRecording: () => true,
    });
  },
  startActiveSpan: (() => undefined) as unknown as Tracer['startActiveSpan'],
};

/** An application's context manager, as @opentelemetry/context-async-hooks' AsyncLocalStorage one works. */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active = (): Context => this.storage.getStore() ?? ROOT_CONTEXT;
  with = <A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    current: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> => this.storage.run(current, () => fn.call(thisArg, ...args));
  bind = <T>(_context: Context, target: T): T => target;
  enable = (): this => this;
  disable = (): this => this;
}

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalContextManager());
  trace.setGlobalTracerProvider({ getTracer: () => recordingTracer });
});
afterAll(() => {
  trace.disable();
  context.disable();
});

test("an application's span started inside ours (its context manager, an await between) is our span's child", async () => {
  const server = startServerSpan(() => null, httpServerStart, 'POST', '/')!;
  const store = startChildSpan('store put', server.context)!;
  const app = await within(store, async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return trace.getTracer('app').startSpan('app call');
  });
  app.end();
  endSpan(store.span);
  endSpan(server.span);
  const serverId = server.span.spanContext();
  expect(started.get('store put')?.parentSpanId).toBe(serverId.spanId);
  expect(started.get('app call')?.parentSpanId).toBe(store.span.spanContext().spanId);
  expect(started.get('app call')?.traceId).toBe(serverId.traceId);
});

test("a span given no parent starts under the application's active span; without a manager, the root's", () => {
  const app = trace.getTracer('app').startSpan('app request');
  const child = context.with(trace.setSpan(ROOT_CONTEXT, app), () => startChildSpan('store list', undefined))!;
  expect(started.get('store list')?.parentSpanId).toBe(app.spanContext().spanId);
  endSpan(child.span);
  // Without a context manager the active context is the root: the API's lookup of the manager is not made.
  context.disable();
  const active = vi.spyOn(context, 'active');
  try {
    // The root holds no span to be a child of.
    expect(startChildSpan('store get', undefined)).toBeUndefined();
    expect(active).not.toHaveBeenCalled();
  } finally {
    active.mockRestore();
    context.setGlobalContextManager(new AsyncLocalContextManager());
  }
});

test('what others put in the context survives our spans; a deleted span reads as none', () => {
  const withBaggage = propagation.setBaggage(ROOT_CONTEXT, propagation.createBaggage({ tenant: { value: 'acme' } }));
  const server = context.with(withBaggage, () => startServerSpan(() => null, httpServerStart, 'POST', '/'))!;
  const store = startChildSpan('store get', server.context)!;
  expect(trace.getSpan(store.context)).toBe(store.span);
  expect(propagation.getBaggage(store.context)?.getEntry('tenant')?.value).toBe('acme');
  expect(trace.getSpan(trace.deleteSpan(store.context))).toBeUndefined();
  expect(trace.getSpan(server.context)).toBe(server.span);
  endSpan(store.span);
  endSpan(server.span);
});

test("a traced turn's runner is called as its method, with itself as `this` (as an untraced turn's is)", async () => {
  class Refused extends Error {}
  class MethodRunner {
    readonly asked: unknown[] = [];
    begin(raw: unknown) {
      this.asked.push(raw);
      return Promise.reject(new Refused('no turns here'));
    }
  }
  const runner = new MethodRunner();
  const traced = instrumentRunner(runner as unknown as TurnRunner, { providers: [], defaultModel: 'model-a' });
  await expect(traced.begin({ model: 'model-a' }, {} as TurnOptions, false)).rejects.toBeInstanceOf(Refused);
  expect(runner.asked).toEqual([{ model: 'model-a' }]);
});

test('a traced turn whose runner throws before making a promise answers a rejected promise, as an async runner does', async () => {
  class Refused extends Error {}
  const throwing = {
    begin: () => {
      throw new Refused('thrown at once');
    },
  };
  const traced = instrumentRunner(throwing as unknown as TurnRunner, { providers: [], defaultModel: 'model-a' });
  let answered: Promise<unknown> | undefined;
  expect(() => {
    answered = traced.begin({ model: 'model-a' }, {} as TurnOptions, false);
  }).not.toThrow();
  await expect(answered).rejects.toBeInstanceOf(Refused);
});
