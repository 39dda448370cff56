import { expectTypeOf, test } from 'vitest';
import type { ResponseOutputTextDeltaStreamingEvent, ResponseCompletedStreamingEvent } from '@openresponses/types';
import { on, onEvery, type ExhaustiveEventHandlers } from '../src/dispatch.js';
import type { VendorEvent } from '../src/events.js';
import { isStreamingEvent } from '../src/events.js';

test('handlers receive the event narrowed to their type', () => {
  on({
    'response.output_text.delta': (event) => expectTypeOf(event).toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>(),
    'response.completed': (event) => expectTypeOf(event.response.status).toBeString(),
    vendor: (event) => expectTypeOf(event).toEqualTypeOf<VendorEvent>(),
  });
});

test('the dispatcher returns what handlers return', () => {
  const textOf = on<string>({ 'response.output_text.delta': (e) => e.delta });
  expectTypeOf(textOf).returns.toEqualTypeOf<string | undefined>();
});

test('onEvery insists on a handler for every spec event type', () => {
  // @ts-expect-error: the other event types have no handler
  onEvery({ 'response.completed': (_event: ResponseCompletedStreamingEvent) => undefined });
  expectTypeOf<keyof ExhaustiveEventHandlers>().toMatchTypeOf<string>();
});

test('isStreamingEvent narrows unknown values', () => {
  const value: unknown = {};
  if (isStreamingEvent(value, 'response.output_text.delta')) expectTypeOf(value.delta).toBeString();
});
