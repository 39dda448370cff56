// The store's span wrapper is made only where a span would be recorded: a turn under a sampled-out trace
// (10% sampling: nine turns in ten) uses the store itself, with no wrapper or closures per turn.
import {
  type Attributes,
  ROOT_CONTEXT,
  type Span,
  type SpanOptions,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { describe, expect, test } from 'vitest';
import { InMemoryResponseStore, putAtOnce } from '../src/stores/memory.js';
import { storeSpans } from '../src/stores/store-spans.js';
import { withSpan } from '../src/telemetry/span-scope.js';
import { sampleEntry } from '../src/testing/index.js';

const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };

describe('storeSpans', () => {
  test('hands back the store itself without a parent or under a sampled-out trace', () => {
    const store = new InMemoryResponseStore();
    expect(storeSpans(store, undefined)).toBe(store);
    const sampledOut = trace.setSpan(
      ROOT_CONTEXT,
      trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.NONE }),
    );
    expect(storeSpans(store, sampledOut)).toBe(store);
  });

  test('wraps the store under a parent whose span may record', async () => {
    const store = new InMemoryResponseStore();
    // A span that reports recording (what an SDK's sampled span does): the wrapper is made and forwards calls.
    const recording = trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.SAMPLED });
    Object.assign(recording, { isRecording: () => true });
    const wrapped = storeSpans(store, trace.setSpan(ROOT_CONTEXT, recording));
    expect(wrapped).not.toBe(store);
    expect(await wrapped.get('resp_absent', 'owner')).toBeUndefined();
  });
});

describe('store spans', () => {
  test('start with one frozen attribute set per store class and operation (its encoding is kept)', async () => {
    const started: Array<{ name: string; attributes: Attributes | undefined }> = [];
    const span = (): Span => {
      const made = trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.SAMPLED });
      return Object.assign(made, { isRecording: () => true });
    };
    const tracer = {
      startSpan: (name: string, options?: SpanOptions) => {
        started.push({ name, attributes: options?.attributes });
        return span();
      },
    } as unknown as Tracer;
    const parent = withSpan(ROOT_CONTEXT, span(), tracer);
    const store = new InMemoryResponseStore();
    await storeSpans(store, parent).get('resp_a', 'owner');
    await storeSpans(store, parent).get('resp_b', 'owner');
    await storeSpans(store, parent).getItem('item_a', 'owner');
    expect(started.map((s) => s.name)).toEqual(['store get', 'store get', 'store getItem']);
    const [first, second, item] = started.map((s) => s.attributes!);
    expect(first).toEqual({ 'db.operation.name': 'get', 'openresponses.store': 'InMemoryResponseStore' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(second).toBe(first);
    expect(item).toEqual({ 'db.operation.name': 'getItem', 'openresponses.store': 'InMemoryResponseStore' });
  });
});

describe('a traced write into the memory store', () => {
  /** A parent whose tracer notes each span's name as it starts and as it ends (with its status). */
  const noting = () => {
    const noted: string[] = [];
    const span = (name: string): Span => {
      const made = trace.wrapSpanContext({ ...spanContext, traceFlags: TraceFlags.SAMPLED });
      return Object.assign(made, {
        isRecording: () => true,
        setAttribute: () => made,
        setStatus: (status: { code: number }) => (noted.push(`${name} status ${status.code}`), made),
        recordException: () => {},
        end: () => void noted.push(`${name} ended`),
      });
    };
    const tracer = {
      startSpan: (name: string) => (noted.push(`${name} started`), span(name)),
    } as unknown as Tracer;
    return { noted, parent: withSpan(ROOT_CONTEXT, span('turn'), tracer) };
  };

  test('is made at once, its span ended as it returns (no promise, as an untraced write)', () => {
    const { noted, parent } = noting();
    const store = new InMemoryResponseStore();
    const entry = sampleEntry({ id: 'resp_at_once', text: 'plain' });
    expect(putAtOnce(storeSpans(store, parent), entry, 'owner')).toBe(true);
    expect(noted).toEqual(['store put started', 'store put ended']);
    expect(store.putNow(entry, 'someone else')).toBe(false);
  });

  test('that throws ends its span as failed and throws at once', () => {
    const { noted, parent } = noting();
    class Failing extends InMemoryResponseStore {
      override putNow(): boolean {
        throw new Error('full');
      }
    }
    const entry = sampleEntry({ id: 'resp_failing', text: 'plain' });
    expect(() => putAtOnce(storeSpans(new Failing(), parent), entry, 'owner')).toThrow('full');
    expect(noted).toEqual(['store put started', 'store put status 2', 'store put ended']);
  });
});
