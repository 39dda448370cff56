import type { StreamingEvent, StreamingEventByType, StreamingEventType } from '@openresponses/types';
import { type AnyStreamingEvent, isStreamingEventType, isVendorType, type VendorEvent } from './events.js';

/** One handler per event type, all optional; vendor and unknown events go to `vendor` / `unknown`. */
export type EventHandlers<R = void> = { [T in StreamingEventType]?: (event: StreamingEventByType<T>) => R } & {
  /** Events whose `type` carries a provider slug (`acme:trace_event`). */
  vendor?: (event: VendorEvent) => R;
  /** Anything else this spec version does not define. */
  unknown?: (event: AnyStreamingEvent) => R;
};

/** Exhaustive handlers: every spec event type must be handled (vendor and unknown stay optional). */
export type ExhaustiveEventHandlers<R = void> = {
  [T in StreamingEventType]: (event: StreamingEventByType<T>) => R;
} & Pick<EventHandlers<R>, 'vendor' | 'unknown'>;

/**
 * Builds a typed dispatcher: `const handle = on({ 'response.output_text.delta': (e) => write(e.delta) })`.
 * Returns what the matching handler returns, or undefined when none matches.
 */
export function on<R = void>(handlers: EventHandlers<R>): (event: AnyStreamingEvent) => R | undefined {
  return (event) => {
    const type = event.type;
    if (isStreamingEventType(type)) {
      const handler = handlers[type] as ((e: StreamingEvent) => R) | undefined;
      return handler?.(event as StreamingEvent);
    }
    if (isVendorType(type) && handlers.vendor) return handlers.vendor(event as VendorEvent);
    return handlers.unknown?.(event);
  };
}

/** Like `on`, but the compiler insists that every spec event type has a handler. */
export function onEvery<R = void>(handlers: ExhaustiveEventHandlers<R>): (event: AnyStreamingEvent) => R | undefined {
  return on<R>(handlers);
}

/**
 * One handler per spec event type, each given its event narrowed to that type and a context. The checker
 * and the accumulator are such tables, so a spec version that adds an event type does not compile until
 * each of them handles it.
 */
export type EventTable<Context, R = void> = {
  [T in StreamingEventType]: (event: StreamingEventByType<T>, context: Context) => R;
};

/** A table's handlers by event type, as an event reaches them: its `type` string as parsed. */
export type EventTableMap<Context, R = void> = Map<string, (event: StreamingEvent, context: Context) => R>;

/**
 * A table as a Map, made once per table. A parsed event's `type` is a string V8 has not internalized, and a
 * property lookup keyed by one costs a string-table search per event (~60 ns on Node 20, about a tenth of
 * the `JSON.parse` of a delta); a Map lookup hashes it once and compares.
 */
export function tableMap<Context, R>(table: EventTable<Context, R>): EventTableMap<Context, R> {
  // The keys and the handlers are the same members of the union, which TypeScript does not correlate.
  return new Map(Object.entries(table) as Array<[string, (event: StreamingEvent, context: Context) => R]>);
}
