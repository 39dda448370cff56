// The checker validates a stream with the schema and event-type list of the spec version it was sent in.
// 2026-04-24 made `logprobs` of response.output_text.delta optional; 2026-01-15 requires it.
import { LATEST_SPEC_VERSION, SPEC_VERSIONS, STREAMING_EVENT_TYPES_BY_VERSION } from '@openresponses/types';
import { describe, expect, test } from 'vitest';
import { checkStream } from '../../src/checker/checker.js';
import { helloAndCall } from '../__fixtures__/responses.js';

/** A writer-built stream whose text deltas carry no `logprobs` (as a peer that sends none would). */
function deltasWithoutLogprobs() {
  return helloAndCall().map((event) => {
    if (event.type !== 'response.output_text.delta') return event;
    const { logprobs: _dropped, ...rest } = event;
    return rest;
  });
}

describe('specVersion', () => {
  test('a text delta without logprobs is valid in 2026-04-24 and a schema violation in 2026-01-15', () => {
    const events = deltasWithoutLogprobs();
    const deltas = events.flatMap((e, index) => (e.type === 'response.output_text.delta' ? [index] : []));
    expect(deltas).toHaveLength(2);
    expect(checkStream(events, { specVersion: '2026-04-24', sawDone: true })).toEqual([]);
    const older = checkStream(events, { specVersion: '2026-01-15', sawDone: true });
    expect(older.map((v) => [v.rule, v.eventIndex])).toEqual(deltas.map((index) => ['schema', index]));
    expect(older[0]!.message).toMatch(/^response\.output_text\.delta: logprobs: /);
  });

  test('without a version the checker follows the latest', () => {
    expect(LATEST_SPEC_VERSION).not.toBe('2026-01-15');
    expect(checkStream(deltasWithoutLogprobs(), { sawDone: true })).toEqual(
      checkStream(deltasWithoutLogprobs(), { specVersion: LATEST_SPEC_VERSION, sawDone: true }),
    );
  });

  test.each(SPEC_VERSIONS)('%s: exactly its event types are known', (specVersion) => {
    const known = STREAMING_EVENT_TYPES_BY_VERSION[specVersion];
    expect(known.length).toBeGreaterThan(20);
    for (const type of known) {
      const rules = checkStream([{ type, sequence_number: 0 }], { specVersion, validateSchemas: false }).map(
        (v) => v.rule,
      );
      expect(rules, type).not.toContain('unknown-event-type');
    }
    const unknown = checkStream([{ type: 'response.output_text.deltas', sequence_number: 0 }], { specVersion });
    expect(unknown.map((v) => v.rule)).toContain('unknown-event-type');
  });
});
