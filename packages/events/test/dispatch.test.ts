import { expect, test } from 'vitest';
import { on } from '../src/dispatch.js';

test('dispatches spec, vendor and unknown events to their handlers', () => {
  const seen: string[] = [];
  const handle = on<number>({
    'response.output_text.delta': (e) => (seen.push(`delta:${e.delta}`), 1),
    vendor: (e) => (seen.push(`vendor:${e.type}`), 2),
    unknown: (e) => (seen.push(`unknown:${e.type}`), 3),
  });
  const results = [
    handle({
      type: 'response.output_text.delta',
      sequence_number: 1,
      item_id: 'm',
      output_index: 0,
      content_index: 0,
      delta: 'hi',
    }),
    handle({ type: 'acme:trace', sequence_number: 2 }),
    handle({ type: 'response.future_event', sequence_number: 3 } as never),
    handle({ type: 'response.completed', sequence_number: 4 } as never),
    // A colon alone does not make a slug: the checker calls this an unknown type, and so does the dispatcher.
    handle({ type: 'acme: trace event', sequence_number: 5 } as never),
    // The slug is lower-case, as `@openresponses/extensions` requires: `Acme:x` is not a vendor type anywhere.
    handle({ type: 'Acme:trace', sequence_number: 6 }),
  ];
  expect(results).toEqual([1, 2, 3, undefined, 3, 3]);
  expect(seen).toEqual([
    'delta:hi',
    'vendor:acme:trace',
    'unknown:response.future_event',
    'unknown:acme: trace event',
    'unknown:Acme:trace',
  ]);
});
