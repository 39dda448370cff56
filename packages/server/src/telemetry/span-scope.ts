// Span scopes and the contexts they run children in: a context with one value more than its parent (what the
// API's `trace.setSpan` makes, cheaper), which also keeps the tracer that started its span, and `within`, which
// makes a scope current only for an application that registered a context manager (telemetry/tracing.ts says
// why our spans take their parent explicitly).
import { type Context, context, ROOT_CONTEXT, type Span, type Tracer, trace } from '@opentelemetry/api';

/** A started span and the context in which it is the current span (run children in it). */
export interface SpanScope {
  readonly span: Span;
  readonly context: Context;
}

/**
 * Runs `run` (with `self` as `this` and `args`, as the API's `context.with` takes them) with `scope` current, or
 * as it is without a scope. Only for other libraries' instrumentation under an application's context manager:
 * our spans take their parent explicitly. Without one (the CLI) it is a plain call, not the API's lookups and
 * its no-op manager's call; callers pass the function and its arguments rather than make a closure per call.
 */
export function within<A extends unknown[], T>(
  scope: SpanScope | undefined,
  run: (...args: A) => T,
  self?: unknown,
  ...args: A
): T {
  return scope && contextManaged() ? context.with(scope.context, run, self, ...args) : run.apply(self, args);
}

/** The API's global registry (major version 1), where `context.setGlobalContextManager` keeps the manager. */
const API_REGISTRY = Symbol.for('opentelemetry.js.api.1');

/**
 * What the API's registry holds now (its tracer provider proxy, meter provider, context manager, propagator), read
 * without the API's version check: for telling, by identity, that nothing was registered again since the
 * API was last asked (each registration after `disable()` puts a new object there).
 */
export const apiRegistry = ():
  | { trace?: unknown; metrics?: unknown; context?: unknown; propagation?: unknown }
  | undefined =>
  (globalThis as { [API_REGISTRY]?: { trace?: unknown; metrics?: unknown; context?: unknown; propagation?: unknown } })[
    API_REGISTRY
  ];

/**
 * Whether an application may have registered a context manager: the API's registry holds one (or is not
 * where this API version keeps it, when `context.with` is asked anyway). test/span-context.test.ts holds
 * that an application's manager still sees our spans current.
 */
export const contextManaged = (): boolean => {
  const registry = apiRegistry();
  return registry === undefined || registry.context !== undefined;
};

/** The API's key of the current span in a context (its `createContextKey` is `Symbol.for` of the description). */
export const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A context with one value more than its parent, found along the chain: what `trace.setSpan` answers, without
 * the copy of the parent's map and the three closures the API's context makes each time (three or four a
 * traced turn). A deleted key reads as undefined, as in the API's contexts.
 */
export class ChildContext implements Context {
  constructor(
    private readonly parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
    /** The tracer that started the span this context makes current (`tracerUnder`). */
    readonly tracer?: Tracer,
  ) {}

  getValue(key: symbol): unknown {
    return key === this.key ? this.value : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChildContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChildContext(this, key, undefined);
  }
}

/**
 * Whether the API reads the current span under `SPAN_KEY`: then a context of our own making (`ChildContext`, a
 * fixed-shape span, telemetry/own-spans.ts) holds it there.
 */
export const spanKeyHolds: boolean = (() => {
  const probe = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '1'.repeat(16), traceFlags: 0 });
  return trace.getSpan(new ChildContext(ROOT_CONTEXT, SPAN_KEY, probe)) === probe;
})();

/** `parent` with `span` current; the API's own way should its span key ever differ from the one above. */
export const withSpan: (parent: Context, span: Span, tracer?: Tracer) => Context = spanKeyHolds
  ? (parent, span, tracer) => new ChildContext(parent, SPAN_KEY, span, tracer)
  : (parent, span) => trace.setSpan(parent, span);

/** The tracer that started the span current in `active`, when we made that context. */
export const tracerIn = (active: Context): Tracer | undefined =>
  active instanceof ChildContext ? active.tracer : undefined;
