import type {
  OpaqueMember,
  StreamingEvent,
  StreamingEventByType,
  StreamingEventType,
  UnknownMember,
} from '@openresponses/types';
import { STREAMING_EVENT_TYPES } from '@openresponses/types';

export type { OpaqueMember, StreamingEvent, StreamingEventByType, StreamingEventType };
export { STREAMING_EVENT_TYPES };

/**
 * What a stream can carry: a spec event, a vendor event (`acme:*`), or one this version does not define (a
 * newer spec's). Neither of the last two has a `type` an event type matches (a vendor's has a colon, an
 * unknown one's is statically a pattern no literal matches), so
 * `if (event.type === 'response.output_text.delta') event.delta` narrows, as on every forward union.
 */
export type AnyStreamingEvent = StreamingEvent | VendorEvent | UnknownMember;

/** A vendor event: its `type` carries a provider slug (`acme:trace_event`). */
export type VendorEvent = OpaqueMember & {
  /** `slug:name`. */
  type: `${string}:${string}`;
  /** The event's place in the stream, as spec events have. */
  sequence_number?: number;
};

const KNOWN = new Set<string>(STREAMING_EVENT_TYPES);

/** Whether `type` is an event type of this package's spec version. */
export function isStreamingEventType(type: unknown): type is StreamingEventType {
  return typeof type === 'string' && KNOWN.has(type);
}

/** Narrows an event to one spec type: `isStreamingEvent(e, 'response.output_text.delta')`. */
export function isStreamingEvent<T extends StreamingEventType>(
  event: unknown,
  type: T,
): event is StreamingEventByType<T> {
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === type;
}

/**
 * The spec's rule for extension types, the one every package applies: a lower-case provider slug, a colon,
 * a name (`acme:search_result`; `Acme:x` is refused everywhere).
 */
export const VENDOR_TYPE_PATTERN = /^[a-z0-9_-]+:[a-z0-9_.-]+$/;

/** A slug-prefixed type (`acme:thing`), the spec's rule for extensions. */
export function isVendorType(type: unknown): type is `${string}:${string}` {
  return typeof type === 'string' && VENDOR_TYPE_PATTERN.test(type);
}

/** Whether an event is a vendor event (a slug-prefixed `type`, `acme:trace`). */
export function isVendorEvent(event: unknown): event is VendorEvent {
  return typeof event === 'object' && event !== null && isVendorType((event as { type?: unknown }).type);
}

/** The terminal lifecycle events: exactly one ends every stream. */
export const TERMINAL_EVENT_TYPES = [
  'response.completed',
  'response.incomplete',
  'response.failed',
] as const satisfies readonly StreamingEventType[];
/** `response.completed`, `response.incomplete` or `response.failed`. */
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];
/** Whether `type` is a terminal lifecycle event type. */
export function isTerminalEventType(type: unknown): type is TerminalEventType {
  return type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed';
}

/**
 * Names some peers use instead of the spec's (`response.reasoning_text.*` for `response.reasoning.*`).
 * Accepted in the lenient profile, where they are reported as warnings.
 */
export const PEER_EVENT_ALIASES: Readonly<Record<string, StreamingEventType>> = {
  'response.reasoning_text.delta': 'response.reasoning.delta',
  'response.reasoning_text.done': 'response.reasoning.done',
};
