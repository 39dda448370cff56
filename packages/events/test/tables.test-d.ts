// The checker and the accumulator are EventTables: one handler per spec event type, each given its event
// narrowed to that type. These prove that the compiler holds the tables to it.
import type {
  ResponseOutputTextDeltaStreamingEvent,
  ResponseRefusalDoneStreamingEvent,
  StreamingEventByType,
  StreamingEventType,
} from '@openresponses/types';
import { expectTypeOf, test } from 'vitest';
import { type EventTable, tableMap } from '../src/dispatch.js';

type Handler<T extends StreamingEventType> = (event: StreamingEventByType<T>, context: number) => void;
/** A table written before a spec version added `Missing`: every other type is handled. */
type TableWithout<Missing extends StreamingEventType> = {
  [T in Exclude<StreamingEventType, Missing>]: Handler<T>;
};
declare const olderTable: TableWithout<'response.refusal.done'>;
declare const completeTable: TableWithout<never>;

test('a table that misses one event type does not compile', () => {
  // @ts-expect-error: response.refusal.done has no handler
  const table: EventTable<number> = olderTable;
  expectTypeOf(table).toEqualTypeOf<EventTable<number>>();
  // The same table with the handler added is accepted.
  const complete: EventTable<number> = completeTable;
  expectTypeOf(complete).not.toBeAny();
  expectTypeOf<keyof EventTable<number>>().toEqualTypeOf<StreamingEventType>();
});

test('a misspelled event type in a table does not compile', () => {
  const table: EventTable<number> = {
    ...completeTable,
    // @ts-expect-error: no spec event is called response.refusal.dne
    'response.refusal.dne': () => {},
  };
  expectTypeOf(table).toEqualTypeOf<EventTable<number>>();
});

test('handlers receive their event narrowed to its type, and the context', () => {
  const table: Pick<EventTable<number>, 'response.refusal.done' | 'response.output_text.delta'> = {
    'response.refusal.done': (event, context) => {
      expectTypeOf(event).toEqualTypeOf<ResponseRefusalDoneStreamingEvent>();
      expectTypeOf(event.refusal).toBeString();
      expectTypeOf(context).toBeNumber();
    },
    'response.output_text.delta': (event) => {
      expectTypeOf(event).toEqualTypeOf<ResponseOutputTextDeltaStreamingEvent>();
      expectTypeOf(event.delta).toBeString();
    },
  };
  expectTypeOf(table).not.toBeAny();
});

test('a handler for another event type does not fit', () => {
  const table: Pick<EventTable<number>, 'response.refusal.done'> = {
    // @ts-expect-error: a text-delta handler reads `delta`, which refusal.done does not carry
    'response.refusal.done': (event: ResponseOutputTextDeltaStreamingEvent) => event.delta,
  };
  expectTypeOf(table).not.toBeAny();
});

test('a table map returns what the handlers return', () => {
  const lengths: EventTable<undefined, number> = completeTable as unknown as EventTable<undefined, number>;
  const handler = tableMap(lengths).get('response.refusal.done');
  expectTypeOf(handler?.({} as ResponseRefusalDoneStreamingEvent, undefined)).toEqualTypeOf<number | undefined>();
});
