// The server's own spans in a fixed shape, beside the OpenTelemetry API path: when the registered provider is the
// CLI's own tracer (node/own-tracer.ts) and the head sampler decided the trace, each of a request's spans (the
// request, its turn, the upstream call, the store calls) is one object of fixed fields that is also its
// children's context (no `Context` made for it, no scope object, no generic list of attributes) and writes its
// attributes from those fields at its end (`EncodableSpan.encodeAttributes`). Anything its shape does not know (a
// key it has no field for, a field set out of its order) turns it into the own tracer's general span, recording
// what the API path records. Why: bench/README.md, "Telemetry overhead".
import type { Attributes, AttributeValue, Context, Span, SpanKind, Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID,
} from './attributes.js';
import type { HeadSlot } from './encodable-span.js';
import { type KeyEntry, keyEntry } from './otlp-attributes.js';
import { HEAD_SAMPLED } from './head-sampling.js';
import { type SpanScope, spanKeyHolds } from './span-scope.js';

/** A span of the server in its fixed shape, its own scope: `span` and `context` are itself. */
export type OwnScopeSpan = Span & Context & SpanScope & FixedFields;

/** What a span in its fixed shape sets in one call: its shape's first fields, in order (undefined: unset). */
export interface FixedFields {
  setFields(
    v0: AttributeValue | undefined,
    v1?: AttributeValue,
    v2?: AttributeValue,
    v3?: AttributeValue,
    v4?: AttributeValue,
  ): void;
}

/** Whether `span` is one of the server's own spans in its fixed shape (it sets its fields in one call). */
export const hasFixedFields = (span: Span): span is Span & FixedFields =>
  (span as Partial<FixedFields>).setFields !== undefined;

/**
 * The attributes a kind of the server's spans sets after its start, in the order it sets them (at most six), and
 * their encoder entries.
 */
export interface SpanShape {
  /** The keys, in order. */
  readonly keys: readonly string[];
  /** Their KeyValue entries (key bytes, a value's kept bytes). */
  readonly entries: readonly KeyEntry[];
  /** The attributes blocks last written for spans of this shape, by frozen starting set (a few at most). */
  readonly kept: KeptBlock[];
  /** The encoder's head of the name and kind its last span was written with. */
  readonly headSlot: HeadSlot;
  /**
   * The starting attribute after the starting set that a span of this shape may be given (`startFixed`'s
   * `extraValue`: a continued turn's previous response id), and its encoder entry.
   */
  readonly extraKey?: string;
  readonly extraEntry?: KeyEntry;
}

/**
 * The bytes a span of a shape last wrote for its attributes (Span field 9's KeyValues): its frozen starting set's,
 * then those of its first fields, as far as each was the same as the span's before (by identity: a primitive or a
 * frozen list), written again by one `set` for the next span with the same starting set and first fields (a
 * turn's finish reasons and model stay, its response id does not), as the floor writes a turn from templates.
 */
export interface KeptBlock {
  /** The starting set it begins with. */
  readonly initial: Attributes;
  bytes: Uint8Array;
  /** The fields' values it holds, in order. */
  values: unknown[];
  /** Where each field's KeyValue ends in `bytes` (`ends[0]`: the starting set's end; a field left unset adds none). */
  ends: number[];
  /** Spans in a row that matched none of its fields: at a few, the block is kept anew. */
  misses: number;
  /**
   * A span head's bytes (`headedBy`, its name and kind: ./otlp-protobuf.ts), room for its times, then `bytes`:
   * the span's fields from its name to its kept attributes in one `set` (made at the first span that can use it).
   */
  headed: Uint8Array | undefined;
  headedBy: Uint8Array | undefined;
  /** The whole span last written for spans of this block whose fields it holds (node/own-span-template.ts). */
  whole: WholeTemplate | undefined;
  /** Spans in a row whose fields after the block did not fit `whole` (at a few, it is made anew). */
  wholeMisses: number;
}
/**
 * A whole span message (ScopeSpans' field 2, its length, ids, a block's `headed` bytes, the fields after the
 * block and the usual tail) as the general writer wrote it, written again with its ids, times and fields after
 * the block patched in (node/own-span-template.ts).
 */
export interface WholeTemplate {
  readonly bytes: Uint8Array;
  /** The head it was made with (its name and kind), whether the span had a parent, and its trace flags. */
  readonly head: Uint8Array;
  readonly parent: boolean;
  readonly flags: number;
  /** Where its ids begin (after its tag and length). */
  readonly idsAt: number;
  /**
   * Its fields after the block, from the block's `values.length` to `last`: where each value's bytes begin and how
   * many (a string's length; an integer's varint size, negated; 0: unset).
   */
  readonly last: number;
  readonly offsets: readonly number[];
  readonly sizes: readonly number[];
}
const shapeOf = (keys: string[], extraKey?: string): SpanShape =>
  Object.freeze({
    keys,
    entries: keys.map(keyEntry),
    kept: [],
    headSlot: { name: undefined, kind: 0, head: undefined },
    extraKey,
    extraEntry: extraKey === undefined ? undefined : keyEntry(extraKey),
  });

/** A turn's span: the finish reasons, then what `endTurnSpan` sets; a continued turn's previous response id at its start. */
export const TURN_SHAPE = shapeOf(
  [
    ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
    ATTR_GEN_AI_RESPONSE_MODEL,
    ATTR_GEN_AI_RESPONSE_ID,
    ATTR_GEN_AI_USAGE_INPUT_TOKENS,
    ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
    ATTR_ERROR_TYPE,
  ],
  ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID,
);
/** A request's server span (`endServerSpan`). */
export const SERVER_SHAPE = shapeOf([ATTR_HTTP_ROUTE, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_ERROR_TYPE]);
/** An upstream call's client span (`endClientSpan`). */
export const CLIENT_SHAPE = shapeOf([ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_ERROR_TYPE]);
/** A store call's span and other children (`endSpan`). */
export const CHILD_SHAPE = shapeOf([ATTR_ERROR_TYPE]);

/** A tracer that makes the server's own spans in their fixed shape (the CLI's own tracer). */
export interface OwnSpanTracer extends Tracer {
  /** False when its provider was asked for the API path only (the differential tests compare both). */
  readonly fixedShapes: boolean;
  /**
   * A span of `shape` under `parent`, recorded (asked only where the head sampler decided to record its trace:
   * for the request's span, or under a context that holds that mark): named `name`, its starting
   * attributes `start` (a frozen set made once, as a rule), then the shape's `extraKey` set to `extraValue` when
   * given (a continued turn's previous response id).
   */
  startFixed(
    shape: SpanShape,
    name: string,
    kind: SpanKind,
    start: Attributes | undefined,
    parent: Context,
    extraValue?: AttributeValue,
  ): OwnScopeSpan;
}

/** Whether `tracer` makes the server's own spans in their fixed shape. */
export const ownSpansOf = (tracer: Tracer | undefined): tracer is OwnSpanTracer =>
  spanKeyHolds && (tracer as Partial<OwnSpanTracer> | undefined)?.fixedShapes === true;

/** A context that is one of the server's own spans in its fixed shape (node/own-fixed-span.ts). */
interface FixedParent {
  /** The tracer that started it while it records (its children's, in their fixed shape); undefined once it ended. */
  readonly fixedChildren: OwnSpanTracer | undefined;
}

/**
 * The tracer of `active`'s children in their fixed shape when `active` is one of the server's own spans in its
 * fixed shape and still records: what `fixedUnder` answers for it (its tracer made it in that shape, where the
 * head decided), read from the span rather than through the API's span lookup, the registry and the head's mark.
 * As for a context of ours (`tracerIn`), the children's tracer is the one that started their parent.
 */
export const fixedTracerUnder = (active: Context): OwnSpanTracer | undefined =>
  (active as Partial<FixedParent>).fixedChildren;

/** Whether a span of `tracer` under `active` takes the fixed shape: the CLI's own tracer, where the head decided. */
export const fixedUnder = (tracer: Tracer | undefined, active: Context): tracer is OwnSpanTracer =>
  ownSpansOf(tracer) && active.getValue(HEAD_SAMPLED) === true;
