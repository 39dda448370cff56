// Whatever a peer sends, the checker reports and the accumulator skips: neither may throw, because a
// client folding a broken stream must still reach its end (and the checker must still name the break).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { startingResponse } from './__fixtures__/responses.js';
import { createAccumulator } from '../src/accumulator/accumulator.js';
import { checkStream } from '../src/checker/checker.js';
import { decodeSSE, SSEDecodeError } from '../src/sse/decoder.js';
import { type AnyStreamingEvent, PEER_EVENT_ALIASES, STREAMING_EVENT_TYPES } from '../src/events.js';

const index = fc.oneof(fc.nat({ max: 3 }), fc.constant(-1), fc.constant(0.5), fc.constant('0'), fc.constant(null));
const text = fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null), fc.integer());
const json = fc.oneof(fc.constant(null), fc.constant({}), fc.constant([]), fc.string({ maxLength: 3 }), fc.integer());
const item = fc.oneof(
  json,
  fc.record(
    {
      type: fc.constantFrom('message', 'function_call', 'reasoning', 'acme:thing'),
      id: fc.constantFrom('a', 'b'),
      content: fc.oneof(json, fc.constant([{ type: 'output_text', text: 'x' }])),
      status: fc.constantFrom('in_progress', 'completed', 'incomplete'),
    },
    { requiredKeys: ['type'] },
  ),
);
const response = fc.oneof(
  json,
  fc.constant(startingResponse()),
  fc.record({
    output: fc.oneof(json, fc.array(item, { maxLength: 2 })),
    status: fc.constantFrom('completed', 'failed'),
  }),
);
const event = fc.record(
  {
    type: fc.constantFrom(
      ...STREAMING_EVENT_TYPES,
      ...Object.keys(PEER_EVENT_ALIASES),
      'acme:trace',
      'response.unknown',
    ),
    sequence_number: fc.oneof(fc.nat({ max: 40 }), fc.constant(undefined), fc.constant('1')),
    output_index: index,
    content_index: index,
    summary_index: index,
    annotation_index: index,
    item_id: fc.oneof(fc.constantFrom('a', 'b'), fc.constant(null)),
    item,
    part: item,
    annotation: json,
    response,
    delta: text,
    text,
    refusal: text,
    arguments: text,
    error: json,
  },
  { requiredKeys: ['type'] },
);
const isEventShaped = (value: unknown): value is AnyStreamingEvent =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
const start = { type: 'response.created', sequence_number: 0, response: startingResponse() };

describe('robustness', () => {
  test('the checker (any values) and the accumulator (any objects with a type) never throw', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(event, json), { maxLength: 12 }),
        fc.boolean(),
        fc.constantFrom('spec' as const, 'lenient' as const),
        (events, started, profile) => {
          const stream = started ? [start, ...events] : events;
          expect(() => checkStream(stream, { profile, sawDone: true })).not.toThrow();
          // The accumulator is typed for what the decoder yields: objects with a string type.
          const accumulator = createAccumulator();
          for (const e of stream.filter(isEventShaped)) expect(() => accumulator.push(e)).not.toThrow();
        },
      ),
      { numRuns: 500, seed: 20260424 },
    );
  });

  test('the decoder either yields events or throws SSEDecodeError, for any bytes in any chunks', async () => {
    const fragment = fc.constantFrom(
      'data: ',
      'data:',
      'event: ',
      ': c',
      'retry: 1',
      '\n',
      '\r',
      '\r\n',
      '{"type":"a"}',
      '{"type":',
      '[DONE]',
      '"\u00e9"',
      '😀',
      'null',
      '\ufeff',
    );
    const text = fc
      .array(fc.oneof(fragment, fc.string({ maxLength: 4 })), { maxLength: 30 })
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom('spec' as const, 'lenient' as const),
        async (input, cuts, profile) => {
          const bytes = new TextEncoder().encode(input);
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...points, bytes.length]
            .slice(1)
            .map((end, k, all) => bytes.slice(k === 0 ? 0 : all[k - 1]!, end));
          try {
            for await (const event of decodeSSE(
              (async function* () {
                yield* pieces;
              })(),
              { profile, maxEventBytes: 64 },
            ))
              expect(typeof event.type).toBe('string');
          } catch (error) {
            expect(error).toBeInstanceOf(SSEDecodeError);
          }
        },
      ),
      { numRuns: 400, seed: 20260115 },
    );
  });
});
