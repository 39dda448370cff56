// The server's own spans in a fixed shape, beside the OpenTelemetry API path: when the registered provider is the
// CLI's own tracer (node/own-tracer.ts) and the head sampler decided the trace, each of a request's spans (the
// request, its turn, the upstream call, the store calls) is one object of fixed fields that is also its
// children's context (no `Context` made for it, no scope object, no generic list of attributes) and writes its
// attributes from those fields at its end (`EncodableSpan.encodeAttributes`), copying what a span of its shape
// and starting set wrote before where the values are the same (`KeptBlock`). Anything its shape does not know (a
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
} from './attributes.js';
import { type KeyEntry, keyEntry } from './otlp-attributes.js';
import { HEAD_SAMPLED } from './head-sampling.js';
import { type SpanScope, spanKeyHolds } from './span-scope.js';

/** A span of the server in its fixed shape, its own scope: `span` and `context` are itself. */
export type OwnScopeSpan = Span & Context & SpanScope;

/**
 * The attributes a kind of the server's spans sets after its start, in the order it sets them (at most six), and
 * their encoder entries.
 */
export interface SpanShape {
  /** The keys, in order. */
  readonly keys: readonly string[];
  /** Their KeyValue entries (key bytes, a value's kept bytes). */
  readonly entries: readonly KeyEntry[];
  /** The attribute blocks its spans last wrote, by starting set. */
  readonly kept: KeptBlocks;
}

/**
 * The attributes (Span field 9) a span of a shape wrote, kept for a frozen starting set: its spans start with
 * one of a few sets and most set the same values again (a route, a status, a model), so a later span copies the
 * runs of it whose values are the same by identity and writes the others (a response id) anew: a copy or two,
 * not a `set` a KeyValue and the starting set (callgrind: `TypedArray.set` 1.8k instructions a traced gateway turn).
 */
export interface KeptBlock {
  readonly initial: Attributes;
  /** The extra starting attribute's key (`startFixed`'s `extraKey`), when its value was written. */
  readonly extraKey: string | undefined;
  /** Item by item: the extra starting attribute's value, then each field's; `NOT_KEPT` for a list not frozen. */
  readonly values: readonly unknown[];
  /** The items up to the last one it holds (those past it, unset in it, are compared only when a span sets them). */
  readonly used: number;
  /** The bytes. */
  readonly bytes: Uint8Array;
  /** `ends[0]`: where the starting set ends; `ends[item + 1]`: where the item ends. */
  readonly ends: readonly number[];
  /**
   * The run last copied that ends where item `i` begins (or, at `values.length`, at the block's end), and where
   * it begins: spans of one set miss the same items, so their runs are the same views (`set` of a view made
   * once, not a view or a word loop a run: ~5 instructions a byte through `ProtobufBuffer.copy`).
   */
  readonly runs: Array<Uint8Array | undefined>;
  readonly runStarts: number[];
  /** Spans in a row that wrote an item anew: at `KEPT_RETRY`, the block is kept again from the next. */
  misses: number;
}
/**
 * A shape's kept blocks, and the starting sets of the last few spans that found none: a block is kept at the
 * second span of a set, so that sets met once (a path with an id in it) do not push out those met every turn.
 */
export interface KeptBlocks {
  readonly blocks: KeptBlock[];
  /** The slot the next block replaces when `KEPT_BLOCKS` are kept. */
  next: number;
  readonly seen: Array<Attributes | undefined>;
  /** The slot of `seen` written next. */
  nextSeen: number;
}
/** Starting sets without a block remembered a shape. */
const SEEN_SETS = 4;
/** Blocks kept a shape at most. */
export const KEPT_BLOCKS = 8;
/** A kept block's bytes at most. */
export const KEPT_BYTES = 1024;
/** Spans in a row that wrote an item anew before their block is kept again (a model that changed for good). */
export const KEPT_RETRY = 16;
/** A value a kept block never matches (a list that is not frozen may change under the same identity). */
export const NOT_KEPT: unknown = Object.freeze({});

const shapeOf = (...keys: string[]): SpanShape =>
  Object.freeze({
    keys,
    entries: keys.map(keyEntry),
    kept: { blocks: [], next: 0, seen: new Array(SEEN_SETS).fill(undefined), nextSeen: 0 },
  });

/** A turn's span: the finish reasons, then what `endTurnSpan` sets. */
export const TURN_SHAPE = shapeOf(
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_ERROR_TYPE,
);
/** A request's server span (`endServerSpan`). */
export const SERVER_SHAPE = shapeOf(ATTR_HTTP_ROUTE, ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_ERROR_TYPE);
/** An upstream call's client span (`endClientSpan`). */
export const CLIENT_SHAPE = shapeOf(ATTR_HTTP_RESPONSE_STATUS_CODE, ATTR_ERROR_TYPE);
/** A store call's span and other children (`endSpan`). */
export const CHILD_SHAPE = shapeOf(ATTR_ERROR_TYPE);

/** A tracer that makes the server's own spans in their fixed shape (the CLI's own tracer). */
export interface OwnSpanTracer extends Tracer {
  /** False when its provider was asked for the API path only (the differential tests compare both). */
  readonly fixedShapes: boolean;
  /**
   * A span of `shape` under `parent`, recorded (the head sampler decided its trace: `headDecided` for the
   * request's span, where the decision was made; its children find it in `parent`): named `name`, its starting
   * attributes `start` (a frozen set made once, as a rule), then `extraKey` set to `extraValue` when given (a
   * continued turn's previous response id).
   */
  startFixed(
    shape: SpanShape,
    name: string,
    kind: SpanKind,
    start: Attributes | undefined,
    parent: Context,
    headDecided: boolean,
    extraKey?: string,
    extraValue?: AttributeValue,
  ): OwnScopeSpan;
}

/** Whether `tracer` makes the server's own spans in their fixed shape. */
export const ownSpansOf = (tracer: Tracer | undefined): tracer is OwnSpanTracer =>
  spanKeyHolds && (tracer as Partial<OwnSpanTracer> | undefined)?.fixedShapes === true;

/** Whether a span of `tracer` under `active` takes the fixed shape: the CLI's own tracer, where the head decided. */
export const fixedUnder = (tracer: Tracer | undefined, active: Context): tracer is OwnSpanTracer =>
  ownSpansOf(tracer) && active.getValue(HEAD_SAMPLED) === true;
