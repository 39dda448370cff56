// What the OTLP span encoder (./otlp-protobuf.ts) reads of an ended span, and of its events, resource and scope:
// the fields of the SDK's `ReadableSpan` that OTLP carries, so that the own tracer's spans and the SDK's both
// encode. Apart from the encoder so that its readers (the own tracer, the export) depend on the shape only.
import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import type { Head } from './otlp-protobuf.js';
import type { ProtobufBuffer } from './protobuf-buffer.js';

/** What is encoded of an ended span: the fields of the SDK's `ReadableSpan` that OTLP carries. */
export interface EncodableSpan {
  /** Its name. */
  readonly name: string;
  /** Its kind (the API's numbering). */
  readonly kind: SpanKind;
  /** Its ids, trace flags and trace state. */
  spanContext(): SpanContext;
  /** Its parent's context, when it has a parent. */
  readonly parentSpanContext?: SpanContext;
  /** Started, `[s, ns]` since the epoch. */
  readonly startTime: HrTime;
  /** Ended, `[s, ns]` since the epoch. */
  readonly endTime: HrTime;
  /** Its status. */
  readonly status: SpanStatus;
  /** Every attribute. */
  readonly attributes: Attributes;
  /** Its links. */
  readonly links: readonly Link[];
  /** Its events. */
  readonly events: readonly SpanEvent[];
  /** Attributes dropped at a limit. */
  readonly droppedAttributesCount: number;
  /** Events dropped at a limit. */
  readonly droppedEventsCount: number;
  /** Links dropped at a limit. */
  readonly droppedLinksCount: number;
  /** The resource it was made under. */
  readonly resource: SpanResource;
  /** Its tracer's scope. */
  readonly instrumentationScope: SpanScopeName;
  /**
   * The attributes in parts, when the span keeps them so (the CLI's own tracer): those it started with, as
   * given (a frozen set is encoded once and its bytes reused), and those set later, in order, in `added` as
   * key, value, key, value; `restatesInitial` when one of those sets a starting one again (then `attributes`
   * is written, where it keeps its place). `attributes` otherwise.
   */
  readonly initial?: Attributes;
  readonly added?: ReadonlyArray<string | AttributeValue>;
  readonly restatesInitial?: boolean;
  /**
   * Writes its attributes (Span field 9) itself when it keeps them in a fixed shape (a turn's span,
   * ./own-spans.ts), answering true; false when the fields above are to be written instead.
   */
  encodeAttributes?(out: ProtobufBuffer): boolean;
  /**
   * Writes the span's `head` (its name, kind and start time's tag, as the encoder keeps them), its times
   * (`startMs`, `endMs`) and its attributes, answering true, when it keeps them as one template after its head (a
   * turn's span, ./own-spans.ts); false, with nothing written, otherwise. Asked only when `clockTimes`.
   */
  encodeFromHead?(out: ProtobufBuffer, head: Uint8Array): boolean;
  /**
   * Writes the whole `Span` message under ScopeSpans' field 2 (its tag and length too) from a template of the
   * last one written like it, answering true, where only its ids, times and attribute values of the same byte
   * lengths differ from it (a turn's span of the own tracer: node/own-span-template.ts); false, with nothing
   * written, otherwise. Asked only when `clockTimes`, with the `head` `encodeFromHead` is given.
   */
  encodeWhole?(out: ProtobufBuffer, head: Uint8Array): boolean;
  /**
   * Where the encoder keeps what it made of the name and kind of the last span written from the same place (a
   * shape of the server's spans, whose spans come with one name again and again): found there, not looked up.
   */
  readonly headSlot?: HeadSlot;
  /**
   * True when the span's times are its clock's readings, kept as wall-clock ms (`startMs`, `endMs`: the CLI's
   * own tracer): the encoder writes them without `[s, ns]` pairs. `startTime` and `endTime` otherwise.
   */
  readonly clockTimes?: boolean;
  /** Started, wall-clock ms since the epoch (read when `clockTimes`). */
  readonly startMs?: number;
  /** Ended, wall-clock ms since the epoch (read when `clockTimes`). */
  readonly endMs?: number;
}

/** The encoder's kept head of a span name and kind (`EncodableSpan.headSlot`); `name` undefined until one is kept. */
export interface HeadSlot {
  name: string | undefined;
  kind: SpanKind;
  head: Head | undefined;
}

/** A span event (the SDK's `TimedEvent`). */
export interface SpanEvent {
  /** When, `[s, ns]` since the epoch. */
  readonly time: HrTime;
  /** Its name (`exception` for a failure). */
  readonly name: string;
  /** Its attributes. */
  readonly attributes?: Attributes;
  /** Attributes dropped at a limit. */
  readonly droppedAttributesCount?: number;
}

/** The resource a span was made under (the SDK's `Resource`: its attributes once settled). */
export interface SpanResource {
  /** Its attributes (`service.name`, …). */
  readonly attributes: Attributes;
  /** Its semantic conventions' schema URL. */
  readonly schemaUrl?: string;
}

/** The instrumentation scope of a span's tracer. */
export interface SpanScopeName {
  /** The tracer's name (`@openresponses/server`). */
  readonly name: string;
  /** The tracer's version. */
  readonly version?: string;
  /** Its semantic conventions' schema URL. */
  readonly schemaUrl?: string;
  /** The scope's attributes. */
  readonly attributes?: Attributes;
  /** Scope attributes dropped at a limit. */
  readonly droppedAttributesCount?: number;
}
