import type {
  ResponseFailedStreamingEvent,
  ResponseOutputTextDeltaStreamingEvent,
  ResponseReasoningSummaryDeltaStreamingEvent,
  UnknownType,
} from '@openresponses/types';
import { expectTypeOf, test } from 'vitest';
import { on } from '../src/dispatch.js';
import { decodeSSE } from '../src/sse/decoder.js';
import {
  type AnyStreamingEvent,
  isStreamingEvent,
  isStreamingEventType,
  isTerminalEventType,
  isVendorEvent,
  type STREAMING_EVENT_TYPES,
  type StreamingEvent,
  type StreamingEventByType,
  type StreamingEventType,
  type TerminalEventType,
  type VendorEvent,
} from '../src/events.js';

test('the per-type map picks exactly one member of the union', () => {
  expectTypeOf<
    StreamingEventByType<'response.output_text.delta'>
  >().toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
  expectTypeOf<
    StreamingEventByType<'response.reasoning_summary_text.delta'>
  >().toEqualTypeOf<ResponseReasoningSummaryDeltaStreamingEvent>();
  expectTypeOf<StreamingEventByType<'response.failed' | 'response.output_text.delta'>>().toEqualTypeOf<
    ResponseFailedStreamingEvent | ResponseOutputTextDeltaStreamingEvent
  >();
});

test('the type-name list and the union agree', () => {
  expectTypeOf<StreamingEvent['type']>().toEqualTypeOf<StreamingEventType>();
  expectTypeOf<(typeof STREAMING_EVENT_TYPES)[number]>().toEqualTypeOf<StreamingEventType>();
  expectTypeOf<TerminalEventType>().toEqualTypeOf<'response.completed' | 'response.incomplete' | 'response.failed'>();
  // Peer names are not spec types.
  expectTypeOf<'response.reasoning_text.delta'>().not.toMatchTypeOf<StreamingEventType>();
});

test('streams carry spec events and opaque members; vendor types need a slug', () => {
  const vendor: AnyStreamingEvent = { type: 'acme:trace_event', sequence_number: 1, latency_ms: 34 };
  expectTypeOf(vendor).toMatchTypeOf<AnyStreamingEvent>();
  // @ts-expect-error: a vendor event type carries a slug prefix
  const unprefixed: VendorEvent = { type: 'trace_event', sequence_number: 1 };
  void unprefixed;
});

test('comparing `type` narrows the open union, as the guards do', () => {
  const event = {} as AnyStreamingEvent;
  // Neither a vendor event (its type has a colon) nor an unknown one (a pattern no literal matches) can have
  // a spec event's type, so the comparison leaves the spec event alone.
  if (event.type === 'response.output_text.delta') {
    expectTypeOf(event).toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
    expectTypeOf(event.delta).toEqualTypeOf<string>();
  }
  if (event.type === 'acme:trace_event') expectTypeOf(event).toEqualTypeOf<VendorEvent>();
  // A newer spec's event stays reachable: through a switch's default, or as a string.
  if (event.type !== 'response.output_text.delta' && !isStreamingEventType(event.type) && !isVendorEvent(event))
    expectTypeOf(event.type).toEqualTypeOf<UnknownType>();
  if (isStreamingEvent(event, 'response.output_text.delta'))
    expectTypeOf(event).toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
  if (isVendorEvent(event)) expectTypeOf(event.type).toEqualTypeOf<`${string}:${string}`>();
  if (isTerminalEventType(event.type)) expectTypeOf(event.type).toEqualTypeOf<TerminalEventType>();
});

test('for await over decodeSSE narrows on event.type', async () => {
  for await (const event of decodeSSE(new ReadableStream<Uint8Array>())) {
    if (event.type === 'response.output_text.delta') expectTypeOf(event.delta).toEqualTypeOf<string>();
    if (event.type === 'response.failed') expectTypeOf(event).toEqualTypeOf<ResponseFailedStreamingEvent>();
  }
});

test('the dispatcher refuses handler names that are not event types', () => {
  // @ts-expect-error: misspelled event type
  on({ 'response.output_text.deltas': () => undefined });
});
