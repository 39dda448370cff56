import type { SSEFrame } from '@openresponses/events';
import { ResponsesError } from '../errors.js';
import type { UpstreamLimits } from '../limits.js';
import type { Redactor } from '../redaction.js';
import { type ModelRoute, routeModelNames, routeServes, upstreamModelOf } from './family.js';
import { CachedModelList } from './model-list.js';
import type { ModelPart, ModelProvider, ModelRequest } from './provider.js';
import { UpstreamCall } from './upstream-call.js';
import {
  type UpstreamFetch,
  type UpstreamProviderOptions,
  type UpstreamResponse,
  upstreamConnection,
} from './upstream.js';

/** The options every upstream family's provider takes besides its own: its key and the names it serves. */
export interface RoutedProviderOptions extends UpstreamProviderOptions {
  /** Never echoed in errors (each family says how it is sent). */
  apiKey?: string;
  /** Which model names this provider serves (default `'any'`: every name, unchanged). */
  route?: ModelRoute;
}

/** What a family gives its provider's shared part: defaults, and how its key travels. */
export interface UpstreamFamilyDefaults {
  /** The provider's name when the options give none (the family's route type). */
  name: string;
  /** The model's context window when the options give none. */
  contextWindow: number;
  /** The family's own headers (the key, a version): after the JSON content type, before `options.headers`. */
  headers: Record<string, string>;
}

/** Text, refusal, reasoning or tool-argument output, or a whole item: what a client waits for first. */
const isOutput = (part: ModelPart) => part.type === 'item' || part.type.endsWith('-delta');

/**
 * Events of one streamed answer translated in one turn of the event loop. A fast upstream's socket reads
 * follow one another in one turn (Node reads a ready socket up to 32 times, 2 MiB, before it polls the
 * others), each translated on microtasks of that turn: a hostile flood of empty or open blocks (an event a
 * ~100-byte block, each an item) held every other request on the server 200-600 ms, one /healthz among them.
 */
export const EVENTS_PER_TURN = 256;

/** Settles once the event loop has run what is pending: writes, other sockets, timers (Node's `setImmediate`; a timer elsewhere). */
const nextLoopTurn = (): Promise<void> =>
  new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });

/** One turn's upstream request as a family makes it, and how the family reads the answer (`UpstreamModelProvider.exchange`). */
export interface UpstreamExchange {
  /** Where the request is POSTed. */
  url: string;
  /** The request body (JSON text). */
  body: string;
  /** Whether the upstream streams its answer (SSE events) rather than answering whole. */
  stream: boolean;
  /** The upstream's HTTP failure (any status but 2xx and 503, which every family answers alike) as a spec error. */
  httpError(response: UpstreamResponse, call: UpstreamCall): Promise<ResponsesError>;
  /** A whole answer's parts, from its text (read within the call's bounds). */
  answerParts(text: string, call: UpstreamCall): ModelPart[];
  /** What reads a streamed answer's events. */
  events(call: UpstreamCall): UpstreamEventReader;
}

/**
 * The exchange `open` keeps for the turn: the family's `UpstreamExchange` copied into a class instance. V8 tracks
 * allocation sites (and may pretenure them) for object literals only, and a family's literal lives as long as its
 * turn when kept: while a server warmed up V8 tenured it, and each later turn's body and callbacks were then held
 * by a dead old object across the scavenges and promoted (SSE gateway turns over HTTP, V8's defaults: 5.8 KB a
 * request into the old generation instead of 2.1-2.3 KB; see OpenedExchange). Copied here, the family's literal
 * is let go at once, for every family.
 */
class Exchange implements UpstreamExchange {
  readonly url: string;
  readonly body: string;
  readonly stream: boolean;
  readonly httpError: UpstreamExchange['httpError'];
  readonly answerParts: UpstreamExchange['answerParts'];
  readonly events: UpstreamExchange['events'];
  constructor(fields: UpstreamExchange) {
    this.url = fields.url;
    this.body = fields.body;
    this.stream = fields.stream;
    this.httpError = fields.httpError;
    this.answerParts = fields.answerParts;
    this.events = fields.events;
  }
}

/** How a family reads its upstream's streamed answer, one SSE event at a time. */
export interface UpstreamEventReader {
  /**
   * Adds the parts `frame` makes to `out`. A `ResponsesError` fails the turn (its message redacted); any other
   * error is the call's failure (`UpstreamCall.failure`).
   */
  push(frame: SSEFrame, out: ModelPart[]): void;
  /** Whether the answer is whole: reading stops there and the rest of the body is let go. */
  readonly complete: boolean;
  /** After the last event: adds what closes the answer (its `finish`), or throws when the stream was cut. */
  finish(out: ModelPart[]): void;
  /** Keep-alive events (Anthropic's `ping`), which do not restart the idle timer. */
  keepAlive?(frame: SSEFrame): boolean;
}

/**
 * The part every provider that calls an HTTP upstream shares, whatever its family: the connection (bounds,
 * fetch, the redactor of its secrets, built once through `upstreamConnection`, which refuses an unsendable
 * key at start), the names its route serves and sends upstream, the upstream's model list, cached, and the
 * call itself (`exchange`). A family adds its request, its answer's translation and its error map (an
 * `UpstreamExchange`, in `generate`), and how its upstream lists models (`upstreamModelIds`).
 */
export abstract class UpstreamModelProvider implements ModelProvider {
  readonly name: string;
  abstract readonly genAiProvider: string;
  readonly contextWindow: number;
  /** The names this provider serves, and how they are sent upstream. */
  protected readonly route: ModelRoute;
  /** Sent with every upstream request: the JSON content type, the family's headers, then the operator's. */
  protected readonly headers: Record<string, string>;
  /** The bounds of every upstream call (`timeoutMs` applied as the idle bound). */
  protected readonly limits: UpstreamLimits;
  /** The fetch every upstream call goes through (`UpstreamCall.send`). */
  protected readonly fetch: UpstreamFetch;
  /** Removes the route's key (and its credential headers) from everything an upstream says. */
  protected readonly redactor: Redactor;
  private readonly models: CachedModelList;

  protected constructor(options: RoutedProviderOptions, family: UpstreamFamilyDefaults) {
    ({ limits: this.limits, fetch: this.fetch, redactor: this.redactor } = upstreamConnection(options, options.apiKey));
    this.name = options.name ?? family.name;
    this.contextWindow = options.contextWindow ?? family.contextWindow;
    this.route = options.route ?? 'any';
    this.headers = Object.assign(
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      family.headers,
      options.headers,
    );
    this.models = new CachedModelList(() => this.upstreamModelIds(), options.modelListTtlMs);
  }

  /** The ids the upstream's own model list names (asked only for `'any'` and `{ prefix }` routes; see `listModels`). */
  protected abstract upstreamModelIds(): Promise<string[]>;

  abstract generate(request: ModelRequest): AsyncIterableIterator<ModelPart>;

  /**
   * One turn's upstream call, the same for every family: `prepare` makes the request (a failure there is the
   * turn's), the call goes through the bounded reader (`UpstreamCall`), and the answer's parts stream as each
   * read of the body completes events (a whole answer's at once). The call is closed however the turn ends,
   * so an upstream stops when the client goes away or the turn stops reading.
   * @internal The families' shared call; its types (`UpstreamCall`) are not part of the public API.
   */
  protected exchange(
    request: ModelRequest,
    prepare: () => UpstreamExchange | Promise<UpstreamExchange>,
  ): AsyncIterableIterator<ModelPart> {
    return new ExchangeParts(() => this.open(request, prepare));
  }

  /**
   * The exchange's first batch: a whole answer's parts (the call already closed), or a stream's batches to
   * come. A whole answer is read by this one async function, not an async generator: a generator's
   * `next()`, its `yield` (which awaits the batch) and its resumption to end were ~10% of the provider's
   * own CPU per JSON turn.
   */
  private async open(
    request: ModelRequest,
    prepare: () => UpstreamExchange | Promise<UpstreamExchange>,
  ): Promise<OpenedExchange> {
    const prepared = prepare();
    const exchange = new Exchange(prepared instanceof Promise ? await prepared : prepared);
    if (exchange.stream) return new OpenedExchange(NO_PARTS, this.streamed(request, exchange));
    const call = new UpstreamCall('POST', this.headers, exchange.body, this.limits, this.redactor, request);
    try {
      const response = await call.send(this.fetch, exchange.url);
      if (!response.ok) throw await exchange.httpError(response, call);
      const parts = exchange.answerParts(await call.text(response), call);
      call.finished = true;
      return new OpenedExchange(parts, undefined);
    } finally {
      call.close();
    }
  }

  /** A streamed answer's parts, a batch per read of the answer (each non-empty). */
  private async *streamed(request: ModelRequest, exchange: UpstreamExchange): AsyncGenerator<ModelPart[], void> {
    const call = new UpstreamCall('POST', this.headers, exchange.body, this.limits, this.redactor, request);
    try {
      const response = await call.send(this.fetch, exchange.url);
      if (!response.ok) throw await exchange.httpError(response, call);
      const events = exchange.events(call);
      let parts: ModelPart[] = [];
      let broken: ResponsesError | undefined;
      let firstOutput = true;
      let eventsThisTurn = 0;
      const reading = call.frames(response, () => events.complete, events.keepAlive);
      try {
        for (let frames = await call.nextFrames(reading); frames; frames = await call.nextFrames(reading)) {
          for (let at = 0; at < frames.length; at++) {
            try {
              events.push(frames[at]!, parts);
            } catch (error) {
              broken = error instanceof ResponsesError ? this.redactor.error(error) : call.failure(error);
            }
            if (broken || events.complete) break;
            if (firstOutput && parts.some(isOutput)) {
              firstOutput = false;
              if (at + 1 < frames.length) {
                // The first output goes to the client before the rest of its read is translated: an upstream that
                // sends many events at once (or a whole answer) would otherwise hold the first token until the
                // last one is done (the transport writes what a turn produced once the turn waits).
                yield parts;
                parts = [];
                await nextLoopTurn();
                eventsThisTurn = 0;
              }
            }
            if (++eventsThisTurn === EVENTS_PER_TURN) {
              // Other requests get their turn (see EVENTS_PER_TURN); the body waits in the reader meanwhile.
              eventsThisTurn = 0;
              if (parts.length > 0) {
                yield parts;
                parts = [];
              }
              await nextLoopTurn();
            }
          }
          if (parts.length > 0) {
            yield parts;
            parts = [];
          }
          if (broken) throw broken;
        }
      } finally {
        reading.release();
      }
      if (call.clientGone) return;
      events.finish(parts);
      call.finished = true;
      if (parts.length > 0) yield parts;
    } finally {
      // Stopped early (the client went away, the turn ended, a failure): the upstream stops too.
      call.close();
    }
  }

  redact(text: string): string {
    return this.redactor.redact(text);
  }

  supports(model: string): boolean {
    return routeServes(this.route, model);
  }

  /** The name the upstream knows `model` by. */
  upstreamModel(model: string): string {
    return upstreamModelOf(this.route, model);
  }

  /**
   * One name for a `{ model }` route; else what the upstream lists (cached, bounded: see `CachedModelList`
   * and `fetchModelNames`; none when it cannot be asked), named as the route serves them.
   */
  async listModels(): Promise<string[]> {
    return routeModelNames(this.route, () => this.models.get());
  }
}

/** Marks an iterable whose parts the turn may read through `PartReader` (responses/turn/parts.ts: `readParts`). */
export const READ_PARTS: unique symbol = Symbol('openresponses.readParts');

/** A reader of parts that answers a part already here at once, and a promise only when it must wait. */
export interface PartReader {
  next(): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>>;
  return(): Promise<unknown>;
}

const NO_PARTS: ModelPart[] = [];
const ENDED: IteratorResult<ModelPart> = Object.freeze({ done: true, value: undefined });

/**
 * What `open` answers: the first batch, and a stream's batches after it (undefined for a whole answer). A class,
 * not an object literal (see Exchange): the opening promise holds it for the whole turn, and a pretenured one
 * held the stream's generator, and so the turn's upstream reading, across every scavenge (metrics on tipped V8
 * into pretenuring it: +1.2-1.8 KB a request promoted).
 */
class OpenedExchange {
  constructor(
    readonly parts: ModelPart[],
    readonly rest: AsyncGenerator<ModelPart[], void> | undefined,
  ) {}
}

/**
 * An exchange's parts, one at a time: the first batch once the exchange is open (a whole answer's parts),
 * then a stream's batches (a read of the answer each). As an async iterator every `next()` is a promise; the
 * turn reads it through `READ_PARTS`, which answers the parts of a batch already read without one: an async
 * generator yielding part by part cost a promise and a microtask per part (the provider's own frames were
 * ~5% of an in-process JSON gateway turn). The exchange opens at the first read, as a generator would start.
 */
class ExchangeParts implements AsyncIterableIterator<ModelPart> {
  private batch = NO_PARTS;
  private at = 0;
  /** Opening (at the first read), then open. */
  private opening: Promise<OpenedExchange> | undefined;
  /** A stream's batches to come; undefined before it is open and once there is nothing more to read. */
  private rest: AsyncGenerator<ModelPart[], void> | undefined;

  constructor(private readonly openExchange: () => Promise<OpenedExchange>) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<ModelPart>> {
    return this.read();
  }

  async return(): Promise<IteratorResult<ModelPart>> {
    this.batch = NO_PARTS;
    const opening = this.opening;
    // Never opened: nothing was sent. Opening: a whole answer closes its call itself; a stream is let go.
    this.opening ??= Promise.resolve(new OpenedExchange(NO_PARTS, undefined));
    if (opening) await opening.then(undefined, () => undefined);
    const rest = this.rest;
    this.rest = undefined;
    await rest?.return();
    return ENDED;
  }

  [READ_PARTS](): PartReader {
    return { next: () => this.read(), return: () => this.return() };
  }

  private read(): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>> {
    if (this.at < this.batch.length) return { done: false, value: this.batch[this.at++]! };
    if (!this.opening)
      return (this.opening = this.openExchange()).then((opened) => {
        this.rest = opened.rest;
        return this.take(opened.parts);
      });
    const rest = this.rest;
    if (!rest) {
      this.batch = NO_PARTS;
      return ENDED;
    }
    return rest.next().then((this.takeNext ??= (result) => this.takeBatch(result)));
  }

  /**
   * `takeBatch` as the callback of each read of a stream, made at its first read (a closure made on every read
   * was garbage a batch; a whole answer's turn never needs it).
   */
  private takeNext:
    | ((result: IteratorResult<ModelPart[], void>) => IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>>)
    | undefined;

  /** A stream's next batch, or its end. */
  private takeBatch(
    result: IteratorResult<ModelPart[], void>,
  ): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>> {
    if (result.done) {
      this.rest = undefined;
      this.batch = NO_PARTS;
      return ENDED;
    }
    return this.take(result.value);
  }

  private take(batch: ModelPart[]): IteratorResult<ModelPart> | Promise<IteratorResult<ModelPart>> {
    this.batch = batch;
    this.at = 0;
    return this.read();
  }
}
