// Span primitives over @opentelemetry/api alone: a no-op until an application (or the CLI) registers an SDK (the
// spans' ends are in ./span-ends.ts).
// Each `start…` answers undefined when there is nothing to record or propagate, so callers skip their
// attribute building and context switching on the hot path; the service, the providers' upstream fetch
// and the store wrapper use them (see the server README's operations section for the spans).
// A span's parent is passed explicitly (request -> turn -> upstream call and store calls), not read from
// `context.active()`: on Node 20 the AsyncLocalStorage context manager that `active()` needs taxes every
// promise of a turn (+60% CPU on an SSE turn, bench/README.md), so the CLI registers none. The active
// context is still the fallback parent, and `within` still makes each span active, for an application that
// registers a context manager and instruments other libraries (its HTTP client spans then nest under ours).
import {
  type Attributes,
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID as PREVIOUS_ID,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  AttributeSets,
  GEN_AI_OPERATION_CHAT,
  INSTRUMENTATION_SCOPE,
  reportedName,
  type ServerStart,
  type TurnFacts,
} from './attributes.js';
import {
  CHILD_SHAPE,
  CLIENT_SHAPE,
  fixedTracerUnder,
  fixedUnder,
  ownSpansOf,
  SERVER_SHAPE,
  TURN_SHAPE,
} from './own-spans.js';
import { apiRegistry, ChildContext, contextManaged, type SpanScope, tracerIn, withSpan } from './span-scope.js';
import { callerContext } from './traceparent.js';

export { type SpanScope, within } from './span-scope.js';
export { endClientSpan, endServerSpan, endSpan, endTurnSpan } from './span-ends.js';
import { HEAD_SAMPLED, type HeadSampler, headSamplerOf, headSamplers } from './head-sampling.js';

/** The API's tracer: used only while no registered provider has been seen (`tracerUnder`). */
const proxyTracer = trace.getTracer(INSTRUMENTATION_SCOPE);

/**
 * False while no tracer provider is registered (the API's own proxy without a delegate): every `start…`
 * then returns at once, before any context lookup or attribute object. A provider registered through
 * another copy of the API is not this one's proxy, and counts as registered.
 */
export function tracing(): boolean {
  // The API is asked again only when its registry holds another provider (the API's lookup checks versions
  // on each call; a turn asks a few times).
  const registered = apiRegistry()?.trace;
  if (registered === checkedRegistered && headSamplers === checkedHeadSamplers) return delegateTracer !== undefined;
  checkedRegistered = registered;
  const provider = trace.getTracerProvider();
  const proxy = provider instanceof ProxyTracerProvider;
  const delegate = proxy ? provider.getDelegate() : provider;
  // Asked of the provider once per registration: the SDK's getTracer builds a key and looks it up on each call.
  if (delegate !== checkedDelegate || headSamplers !== checkedHeadSamplers) {
    checkedDelegate = delegate;
    checkedHeadSamplers = headSamplers;
    delegateTracer = proxy
      ? provider.getDelegateTracer(INSTRUMENTATION_SCOPE)
      : provider.getTracer(INSTRUMENTATION_SCOPE);
    headSampler = headSamplerOf(delegate);
  }
  return delegateTracer !== undefined;
}
/** The registry's tracer provider when the API was last asked (`tracing`). */
let checkedRegistered: unknown;
let checkedDelegate: unknown;
let checkedHeadSamplers: number | undefined;
/** The registered provider's tracer (not the API's proxy in front of it: one call less a span). */
let delegateTracer: Tracer | undefined;
/** The registered provider's head sampler, when it was registered with one (`sampleAtHead`). */
let headSampler: HeadSampler | undefined;

/**
 * The tracer that started the span current in `active` (kept in the contexts we make: a child needs no
 * lookup of the registered provider), else the registered provider's, else undefined.
 */
function tracerUnder(active: Context): Tracer | undefined {
  return tracerIn(active) ?? (tracing() ? delegateTracer : undefined);
}

/** The head sampler's decision for a trace whose parent is `parent` (undefined: a new trace). */
function headDecision(sampler: HeadSampler, parent: SpanContext | undefined): boolean {
  if (parent === undefined) return sampler.sampled(undefined);
  return sampler.parentBased ? (parent.traceFlags & TraceFlags.SAMPLED) !== 0 : sampler.sampled(parent.traceId);
}

/**
 * A started scope (its context keeping `tracer` for the span's children), or undefined when the span records
 * nothing and carries no trace to propagate (no SDK).
 */
function scopeOf(span: Span, parent: Context, tracer: Tracer): SpanScope | undefined {
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return undefined;
  return { span, context: withSpan(parent, span, tracer) };
}

/**
 * The parent given, else the active context: an application's context manager's; without one, the root, the API
 * not asked (its lookup of the manager is a megamorphic keyed load, ~140 instructions a call, callgrind).
 */
const parentOr = (parent: Context | undefined): Context =>
  parent ?? (contextManaged() ? context.active() : ROOT_CONTEXT);

/**
 * Whether `active` holds a span that records nothing (its trace was sampled out). Its children are not made:
 * the SDK's parent-based samplers (the default) would not record them either, and each would still cost ids
 * and a context. An upstream call still carries the trace (see `startClientSpan`).
 */
const sampledOut = (active: Context): boolean => trace.getSpan(active)?.isRecording() === false;

/**
 * Whether a child of `parent` (else of the active context) would record nothing: its parent's trace was
 * sampled out. Callers then take their untraced path, keeping `parent` for the trace it still carries.
 */
export const sampledOutUnder = (parent: Context | undefined): boolean => {
  const active = parentOr(parent);
  // One of the server's own spans in its fixed shape that records: read from the span, not the API's lookup.
  return fixedTracerUnder(active) === undefined && sampledOut(active);
};

/**
 * Whether a turn under `parent` (else the active context) is traced: a tracer is registered and its trace was not
 * sampled out; under one of the server's own spans in its fixed shape that records, so without asking.
 */
export const turnTracedUnder = (parent: Context | undefined): boolean => {
  const active = parentOr(parent);
  return fixedTracerUnder(active) !== undefined || (tracing() && !sampledOut(active));
};

/**
 * The server span of one HTTP request (or WebSocket turn): a child of the span already current (an app
 * that mounts the handler under its own instrumentation), else of the caller's W3C `traceparent`. Its name
 * and attributes are `startOf(key, path)`, asked only for a span that is started (not for a trace the head
 * sampler dropped); the function and its arguments rather than a closure per request. `key`: the request's
 * method (HTTP), or the span's name (a WebSocket turn).
 */
export function startServerSpan(
  header: (name: string) => string | null,
  startOf: (key: string, path: string) => ServerStart,
  key: string,
  path: string,
): SpanScope | undefined {
  if (!tracing()) return undefined;
  // Without a context manager the active context is the root, which holds no span: the API is not asked.
  const managed = contextManaged();
  const active = managed ? context.active() : ROOT_CONTEXT;
  let parent = managed && trace.getSpan(active) ? active : callerContext(active, header);
  const sampler = headSampler;
  if (sampler !== undefined) {
    const found = parent === ROOT_CONTEXT ? undefined : trace.getSpanContext(parent);
    const caller = found !== undefined && isSpanContextValid(found) ? found : undefined;
    if (!headDecision(sampler, caller)) return caller === undefined ? UNTRACED : passedOn(parent, caller);
    const { name, attributes } = startOf(key, path);
    // The CLI's own tracer: the fixed shape (./own-spans.ts), which holds the head's decision for its children.
    const own = delegateTracer;
    if (ownSpansOf(own)) return own.startFixed(SERVER_SHAPE, name, SpanKind.SERVER, attributes, parent);
    parent = new ChildContext(parent, HEAD_SAMPLED, true);
  }
  const { name, attributes } = startOf(key, path);
  const tracer = delegateTracer!;
  return scopeOf(tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent), parent, tracer);
}

/**
 * A new trace the head sampler dropped: a span with no trace, so that what runs under it (the turn, its store
 * and upstream calls) is sampled out too and propagates nothing. One for every such request.
 */
const UNTRACED: SpanScope = (() => {
  const span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
  // A context of the same class as a recorded request's (withSpan), so that what reads a request's context
  // sees one shape whether its trace was sampled or not.
  return { span, context: withSpan(ROOT_CONTEXT, span) };
})();

/**
 * A dropped trace's context as it goes on: the caller's span context in a span that records nothing, its
 * sampled flag cleared (a non-parent-based sampler may drop what the caller sampled). What the propagator
 * extracted already is that, and is passed on as it is.
 */
function passedOn(parent: Context, caller: SpanContext): SpanScope {
  const span = trace.getSpan(parent)!;
  if (!span.isRecording() && (caller.traceFlags & TraceFlags.SAMPLED) === 0) return { span, context: parent };
  const dropped = trace.wrapSpanContext(
    Object.assign({}, caller, { traceFlags: caller.traceFlags & ~TraceFlags.SAMPLED }),
  );
  return { span: dropped, context: withSpan(parent, dropped) };
}

/** A child span of `parent`'s span (store calls, …), or undefined when no trace is there. */
export function startChildSpan(
  name: string,
  parent: Context | undefined,
  attributes?: Attributes,
): SpanScope | undefined {
  const active = parentOr(parent);
  // Under one of the server's own spans in its fixed shape that records: its tracer, with no lookup.
  const own = fixedTracerUnder(active);
  if (own !== undefined) return own.startFixed(CHILD_SHAPE, name, SpanKind.INTERNAL, attributes, active);
  if (trace.getSpan(active)?.isRecording() !== true) return undefined;
  const tracer = tracerUnder(active) ?? proxyTracer;
  if (fixedUnder(tracer, active)) return tracer.startFixed(CHILD_SHAPE, name, SpanKind.INTERNAL, attributes, active);
  return scopeOf(tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, active), active, tracer);
}

/**
 * The GenAI span of one turn (`chat {model}`), a child of `parent` (the request's server span).
 * `facts` as known when it starts (the model asked for, the provider).
 */
export function startTurnSpan(facts: TurnFacts, stream: boolean, parent: Context | undefined): SpanScope | undefined {
  const active = parentOr(parent);
  // Under one of the server's own spans in its fixed shape that records: its tracer, with no lookup.
  const own = fixedTracerUnder(active);
  const tracer = own ?? (sampledOut(active) ? undefined : tracerUnder(active));
  if (tracer === undefined) return undefined;
  const model = facts.requestModel === undefined ? undefined : reportedName(facts.requestModel);
  const start = turnStarts.get(model, facts.provider, stream, undefined, turnStartOf);
  // The CLI's own tracer, where the head decided: the fixed shape (./own-spans.ts).
  const fixed = own ?? (fixedUnder(tracer, active) ? tracer : undefined);
  if (fixed !== undefined) {
    const previous = facts.previousResponseId;
    const extra = previous === undefined ? undefined : reportedName(previous);
    const { name, attributes } = start;
    return fixed.startFixed(TURN_SHAPE, name, SpanKind.INTERNAL, attributes, active, extra);
  }
  // One attribute object for the start, the continued turn's id in it (not set on the span afterwards).
  const attributes =
    facts.previousResponseId === undefined
      ? start.attributes
      : { ...start.attributes, [PREVIOUS_ID]: reportedName(facts.previousResponseId) };
  return scopeOf(tracer.startSpan(start.name, { kind: SpanKind.INTERNAL, attributes }, active), active, tracer);
}
/** A turn span's name and starting attributes by model, provider and streaming, made once (the sampler sees them too). */
const turnStarts = new AttributeSets<{ readonly name: string; readonly attributes: Attributes }>();
const turnStartOf = (model: string | undefined, provider: string | undefined, stream: boolean) => {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
    [ATTR_GEN_AI_REQUEST_STREAM]: stream,
  };
  if (model !== undefined) attributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
  if (provider !== undefined) attributes[ATTR_GEN_AI_PROVIDER_NAME] = provider;
  return {
    name: model ? `${GEN_AI_OPERATION_CHAT} ${model}` : GEN_AI_OPERATION_CHAT,
    attributes: Object.freeze(attributes),
  };
};

/**
 * The client span of an upstream HTTP call (`POST`), a child of `parent` (the turn's span), or undefined
 * when no trace is there. Under a sampled-out parent, the parent's own scope stands in (its span records
 * nothing and ends as a no-op), so the upstream still gets the trace and its not-sampled flag. `url.full` leaves out credentials and the query string (where some APIs carry keys).
 */
export function startClientSpan(method: string, url: string, parent: Context | undefined): SpanScope | undefined {
  const active = parentOr(parent);
  // Under one of the server's own spans in its fixed shape that records: its tracer, with no lookup.
  const own = fixedTracerUnder(active);
  if (own !== undefined)
    return own.startFixed(CLIENT_SHAPE, method, SpanKind.CLIENT, clientAttributesOf(method, url), active);
  const parentSpan = trace.getSpan(active);
  if (!parentSpan) return undefined;
  if (!parentSpan.isRecording()) return { span: parentSpan, context: active };
  const attributes = clientAttributesOf(method, url);
  const tracer = tracerUnder(active) ?? proxyTracer;
  if (fixedUnder(tracer, active)) return tracer.startFixed(CLIENT_SHAPE, method, SpanKind.CLIENT, attributes, active);
  return scopeOf(tracer.startSpan(method, { kind: SpanKind.CLIENT, attributes }, active), active, tracer);
}

/**
 * Client span attributes by method and URL, made once: providers call a few configured URLs, and parsing one
 * costs µs. By the two parts, not a key joined of them: a string made per call is hashed at each lookup (~2k
 * instructions a traced gateway turn, callgrind).
 */
const clientAttributesOf = (method: string, url: string): Attributes =>
  clientAttributeSets.get(method, url, undefined, undefined, clientAttributesMade);
const clientAttributeSets = new AttributeSets();
const clientAttributesMade = (method: string, url: string): Attributes => {
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: method };
  if (URL.canParse(url)) {
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    attributes[ATTR_SERVER_ADDRESS] = parsed.hostname;
    attributes[ATTR_SERVER_PORT] = port;
    attributes[ATTR_URL_FULL] = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  }
  return attributes;
};

/**
 * `headers` with the scope's trace context added: W3C `traceparent` only, as the registered propagator
 * writes it; a copy. A client's `tracestate` and `baggage` (which the default propagators carry on) stay
 * here: they are the client's words, and an upstream provider is another party. With no `traceparent` to
 * add (a new trace the head sampler dropped) `headers` themselves, not a copy: nodeFetch keeps the header
 * list it makes per headers object, and a copy per call made it build the list again for every sampled-out
 * gateway turn. (Under the W3C propagators the call appends `traceparent` itself: ./traceparent.ts.)
 */
export function withTraceHeaders(scope: SpanScope, headers: Record<string, string>): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(scope.context, carrier);
  if (carrier.traceparent === undefined) return headers;
  const copy = Object.assign({}, headers);
  copy.traceparent = carrier.traceparent;
  return copy;
}

/** The trace id of `parent`'s span (else the active one), when one is recorded or propagated. */
export function traceIdOf(parent: Context | undefined): string | undefined {
  const spanContext = trace.getSpan(parentOr(parent))?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}
