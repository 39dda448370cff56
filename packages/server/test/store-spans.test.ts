// The store's span wrapper is made only where a span would be recorded: a turn under a sampled-out trace
// (10% sampling: nine turns in ten) uses the store itself, with no wrapper or closures per turn.
import { ROOT_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { describe, expect, test } from 'vitest';
import { InMemoryResponseStore } from '../src/stores/memory.js';
import { storeSpans } from '../src/stores/store-spans.js';

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
