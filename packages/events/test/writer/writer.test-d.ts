import type { ResponseOutputTextDeltaStreamingEvent, StreamingEvent } from '@openresponses/types';
import { expectTypeOf, test } from 'vitest';
import type { VendorEvent } from '../../src/events.js';
import type { EventDraft, StreamWriterOptions, WrittenEvent } from '../../src/writer/writer.js';

const at = { item_id: 'msg_1', output_index: 0, content_index: 0 };

test('a draft is the generated event of its type, sequence_number left to emit()', () => {
  const delta: EventDraft = { type: 'response.output_text.delta', ...at, delta: 'Hi' };
  expectTypeOf(delta).toMatchTypeOf<Omit<StreamingEvent, 'sequence_number'>>();
  expectTypeOf<Required<EventDraft<'response.output_text.delta'>>>().toEqualTypeOf<
    Required<ResponseOutputTextDeltaStreamingEvent>
  >();
});

test('a misspelled event field does not compile', () => {
  // @ts-expect-error: `detla` is no field of response.output_text.delta
  const misspelled: EventDraft = { type: 'response.output_text.delta', ...at, detla: 'Hi' };
  // @ts-expect-error: refusal.done carries `refusal`, not `text`
  const wrongField: EventDraft = { type: 'response.refusal.done', ...at, text: 'No.' };
  // @ts-expect-error: a field of the right name with the wrong type
  const wrongValue: EventDraft = { type: 'response.output_text.delta', ...at, delta: 42 };
  expectTypeOf([misspelled, wrongField, wrongValue]).toBeArray();
});

test('a wrong event type does not compile', () => {
  // @ts-expect-error: no spec event is called response.output_text.deltas
  const unknownType: EventDraft = { type: 'response.output_text.deltas', ...at, delta: 'Hi' };
  // @ts-expect-error: a completed event carries a response, not a delta
  const wrongShape: EventDraft = { type: 'response.completed', delta: 'Hi' };
  expectTypeOf([unknownType, wrongShape]).toBeArray();
});

test('onEvent receives spec events narrowable by type, and vendor events', () => {
  const onEvent: StreamWriterOptions['onEvent'] = (event) => {
    expectTypeOf(event).toEqualTypeOf<WrittenEvent>();
    if (event.type === 'response.output_text.delta') expectTypeOf(event.delta).toBeString();
  };
  expectTypeOf<WrittenEvent>().toEqualTypeOf<StreamingEvent | VendorEvent>();
  expectTypeOf(onEvent).toBeFunction();
});
