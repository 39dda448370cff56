// The CLI's own tracer's span (./own-tracer.ts): recorded until `end`, then handed to the export
// (./otlp-span-export.ts) and forgotten. Ids kept as bytes of a pooled random buffer (telemetry/span-ids.ts), one
// `performance.now()` a start and an end (./span-clock.ts), the starting attributes kept as given (the server's
// frozen attribute sets, whose encoding is then reused). The server's spans in their fixed shape
// (./own-fixed-span.ts) share its methods (`SpanRecord`).
import {
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
} from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';
import type { EncodableSpan, SpanEvent, SpanResource, SpanScopeName } from '../telemetry/encodable-span.js';
import { initialKeysOf, isAttributeValue } from './own-span-attributes.js';
import { hrTimeOf, timeOf, wallClockMs } from './span-clock.js';

/** What receives ended spans (an `OtlpSpanExport`). */
export interface EndedSpans {
  /** Takes a span that just ended (sampled: the tracer makes no other). */
  onEnd(span: EncodableSpan): void;
  /** Sends what it holds. */
  forceFlush(): Promise<void>;
  /** Sends what it holds and stops. */
  shutdown(): Promise<void>;
}

/** What a span reads of the tracer that made it: its provider's export and resource, its scope. */
export interface SpanMaker {
  /** Its provider. */
  readonly provider: {
    /** Where ended spans go. */
    readonly ended: EndedSpans;
    /** The resource of every span. */
    readonly resource: SpanResource;
  };
  /** The scope of its spans. */
  readonly scope: SpanScopeName;
}

/** No starting attributes. */
export const EMPTY: Attributes = Object.freeze({});
const COUNT_LIMIT = 128;
// A span without links, events or a status set shares these (most spans): replaced, never written to.
const NO_LINKS: Link[] = Object.freeze([]) as unknown as Link[];
const NO_EVENTS: SpanEvent[] = Object.freeze([]) as unknown as SpanEvent[];
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/**
 * What few spans have (links, events, a status, drops, a caller's times, a starting attribute set again): made
 * at the first of them, so that a span has a dozen fields to keep across a turn's upstream wait, not two dozen.
 */
class SpanExtras {
  links: Link[] = NO_LINKS;
  events: SpanEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  restatesInitial = false;
  startGiven: HrTime | undefined = undefined;
  endGiven: HrTime | undefined = undefined;
}

/**
 * What the own tracer's two spans share, this general one (`OwnSpan`) and the fixed shape's (./own-fixed-span.ts):
 * every method and field, but no constructor and no field initialisers. Each span's class assigns every field
 * in its own constructor, so that `super()` is left out (V8 omits a default constructor) and making a span is
 * one allocation: a base constructor run through `super()` was not inlined into the tracer's `startFixed` (its
 * construct stubs and call ~1k instructions a traced gateway turn, callgrind).
 */
export abstract class SpanRecord implements Span, EncodableSpan {
  /**
   * Attributes set after the start, in the order first set, as key, value, key, value (one array made at the
   * first one, not two): the encoder writes them without an object to walk or a check a key.
   */
  declare added: Array<string | AttributeValue> | undefined;
  /** Wall-clock ms of the start, of the end (0 until it ends; the encoder writes these when no time was given). */
  declare startMs: number;
  declare endMs: number;
  /** Distinct attributes, counted from the first `setAttribute` (the limit is the SDK's default, 128). */
  declare protected count: number;
  declare protected extras: SpanExtras | undefined;
  declare protected tracer: SpanMaker;
  declare name: string;
  declare kind: SpanKind;
  declare protected ids: SpanContext;
  declare parentSpanContext: SpanContext | undefined;
  /** The starting attributes, as given (never written to). */
  declare initial: Attributes;

  protected more(): SpanExtras {
    return (this.extras ??= new SpanExtras());
  }

  get resource(): SpanResource {
    return this.tracer.provider.resource;
  }

  get instrumentationScope(): SpanScopeName {
    return this.tracer.scope;
  }

  get links(): Link[] {
    return this.extras === undefined ? NO_LINKS : this.extras.links;
  }

  get events(): SpanEvent[] {
    return this.extras === undefined ? NO_EVENTS : this.extras.events;
  }

  get status(): SpanStatus {
    return this.extras === undefined ? UNSET : this.extras.status;
  }

  get droppedAttributesCount(): number {
    return this.extras === undefined ? 0 : this.extras.droppedAttributesCount;
  }

  get droppedEventsCount(): number {
    return this.extras === undefined ? 0 : this.extras.droppedEventsCount;
  }

  get droppedLinksCount(): number {
    return this.extras === undefined ? 0 : this.extras.droppedLinksCount;
  }

  /** Whether an attribute set after the start sets a starting one again (it keeps its place among them). */
  get restatesInitial(): boolean {
    return this.extras?.restatesInitial === true;
  }

  get startTime(): HrTime {
    return this.extras?.startGiven ?? hrTimeOf(this.startMs);
  }

  get endTime(): HrTime {
    return this.extras?.endGiven ?? hrTimeOf(this.endMs);
  }

  /** Whether both times are the clock's (`startMs`, `endMs`), none given by the caller. */
  get clockTimes(): boolean {
    const extras = this.extras;
    return extras === undefined || (extras.startGiven === undefined && extras.endGiven === undefined);
  }

  /** Every attribute, the starting ones first (a copy: the encoder reads `initial` and the added ones apart). */
  get attributes(): Attributes {
    const added = this.added;
    if (added === undefined) return this.initial;
    const all: Attributes = { ...this.initial };
    // Defined, not assigned: a key such as `__proto__` is an attribute like any other.
    for (let i = 0; i < added.length; i += 2)
      Object.defineProperty(all, added[i] as string, {
        value: added[i + 1],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return all;
  }

  spanContext(): SpanContext {
    return this.ids;
  }

  setAttribute(key: string, value: SpanAttributes[string]): this {
    if (value == null || this.endMs !== 0 || key.length === 0 || !isAttributeValue(value)) return this;
    let added = this.added;
    if (added === undefined) {
      added = this.added = [];
      this.count = initialKeysOf(this.initial).length;
    }
    // Keys at even places only: a string value equal to a key is not that key.
    for (let i = 0; i < added.length; i += 2)
      if (added[i] === key) {
        added[i + 1] = value;
        return this;
      }
    if (initialKeysOf(this.initial).includes(key)) this.more().restatesInitial = true;
    else if (this.count >= COUNT_LIMIT) {
      this.more().droppedAttributesCount++;
      return this;
    } else this.count++;
    added.push(key, value);
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const key in attributes) if (Object.hasOwn(attributes, key)) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (this.endMs !== 0) return this;
    let attributes: Attributes | undefined;
    if (attributesOrTime instanceof Date || typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime))
      time ??= attributesOrTime as TimeInput;
    else if (attributesOrTime) {
      attributes = {};
      for (const key in attributesOrTime)
        if (Object.hasOwn(attributesOrTime, key) && isAttributeValue(attributesOrTime[key]))
          attributes[key] = attributesOrTime[key];
    }
    const extras = this.more();
    if (extras.events === NO_EVENTS) extras.events = [];
    if (extras.events.length >= COUNT_LIMIT) {
      extras.events.shift();
      extras.droppedEventsCount++;
    }
    extras.events.push({
      name,
      attributes: attributes ?? {},
      time: time === undefined ? hrTimeOf(wallClockMs(performance.now())) : timeOf(time),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(link: Link): this {
    const extras = this.more();
    if (extras.links.length >= COUNT_LIMIT) extras.droppedLinksCount++;
    else {
      if (extras.links === NO_LINKS) extras.links = [];
      extras.links.push(link);
    }
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.endMs !== 0 || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.more().status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (this.endMs === 0) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.endMs !== 0) return;
    // A span started at a given time ends by the wall clock (a `performance.now()` reading is not comparable).
    const given = this.extras?.startGiven !== undefined;
    if (endTime !== undefined) this.more().endGiven = timeOf(endTime);
    this.endMs = given ? Date.now() : wallClockMs(performance.now());
    this.tracer.provider.ended.onEnd(this);
  }

  isRecording(): boolean {
    return this.endMs === 0;
  }

  /** As the SDK records one: an `exception` event with its type (code, else name), message and stack. */
  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }
}

/** A sampled span of the own tracer: recorded until `end`, then handed to the export and forgotten. */
export class OwnSpan extends SpanRecord {
  constructor(
    tracer: SpanMaker,
    name: string,
    kind: SpanKind,
    ids: SpanContext,
    parentSpanContext: SpanContext | undefined,
    initial: Attributes,
    links: Link[] | undefined,
    startTime: TimeInput | undefined,
  ) {
    super();
    // Every field of `SpanRecord`, in the order OwnFixedSpan assigns them.
    this.tracer = tracer;
    this.name = name;
    this.kind = kind;
    this.ids = ids;
    this.parentSpanContext = parentSpanContext;
    this.initial = initial;
    this.added = undefined;
    this.count = 0;
    this.extras = undefined;
    this.endMs = 0;
    this.startMs = wallClockMs(performance.now());
    if (links !== undefined && links.length > 0) this.more().links = links.slice(0, COUNT_LIMIT);
    if (startTime !== undefined) this.more().startGiven = timeOf(startTime);
  }
}
