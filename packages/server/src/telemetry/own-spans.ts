// The server's own spans in a fixed shape, beside the OpenTelemetry API path: when the registered provider is the
// CLI's own tracer (node/own-tracer.ts) and the head sampler decided the trace, a turn's span is one object of
// fixed fields that is also its children's context (no `Context` made for it, no scope object, no generic list
// of attributes) and writes its attributes from those fields at its end (`EncodableSpan.encodeAttributes`).
// Anything the shape does not know (a key it has no field for, a field set out of its order) turns it into the
// own tracer's general span, recording what the API path records. Why: bench/README.md, "Telemetry overhead".
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { SpanScope } from './span-scope.js';

/** A turn's span (`chat {model}`) as its own scope: `span` and `context` are itself. */
export type OwnTurnSpan = Span & Context & SpanScope;

/** A tracer that makes the server's own spans in their fixed shape (the CLI's own tracer). */
export interface OwnSpanTracer extends Tracer {
  /** False when its provider was asked for the API path only (the differential tests compare both). */
  readonly fixedShapes: boolean;
  /**
   * A turn's span under `parent` (a context whose trace the head sampler decided to record): named `name`, its
   * starting attributes `start` (a frozen set made once per model, provider and streaming), then the continued
   * turn's `previousResponseId` when given.
   */
  startTurn(name: string, start: Attributes, previousResponseId: string | undefined, parent: Context): OwnTurnSpan;
}

/** Whether `tracer` makes the server's own spans in their fixed shape. */
export const ownSpansOf = (tracer: Tracer): tracer is OwnSpanTracer =>
  (tracer as Partial<OwnSpanTracer>).fixedShapes === true;
