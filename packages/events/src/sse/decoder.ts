import { type AnyStreamingEvent, STREAMING_EVENT_TYPES } from '../events.js';
import { DEFAULT_MAX_FRAME_BYTES as DEFAULT_MAX_EVENT_BYTES, FrameDecoder, SSEFrameError } from './frames.js';

/** Each spec event type, to itself: the constant a decoded event's `type` becomes. */
const SPEC_TYPES = new Map<string, string>(STREAMING_EVENT_TYPES.map((type) => [type, type]));

/** Why a stream could not be decoded (or, in the lenient profile, what a warning is about). */
export type DecodeErrorCode =
  | 'invalid_json'
  | 'not_an_event'
  | 'event_too_large'
  | 'event_type_mismatch'
  | 'missing_event_field'
  | 'missing_done';

/** A stream that cannot be decoded; names where: the event's index and the byte offset where it starts. */
export class SSEDecodeError extends Error {
  /** `'SSEDecodeError'`. */
  override name = 'SSEDecodeError';
  constructor(
    /** What is wrong. */
    readonly code: DecodeErrorCode,
    /** The index of the event it is about, from 0. */
    readonly eventIndex: number,
    /** Where that event starts, in bytes from the start of the stream. */
    readonly byteOffset: number,
    detail: string,
  ) {
    super(`SSE event ${eventIndex} at byte ${byteOffset}: ${detail}`);
  }
}

/** Something the lenient profile (or a data-only stream) let through, reported to `onWarning`. */
export interface StreamWarning {
  /** What it is about. */
  code: DecodeErrorCode;
  /** The index of the event it is about. */
  eventIndex: number;
  /** Where that event starts, in bytes. */
  byteOffset: number;
  /** A sentence saying what was let through. */
  message: string;
}

/** What `decodeSSE` takes. */
export interface DecodeOptions {
  /** The largest `data` payload of one event, in bytes (default 16 MiB). */
  maxEventBytes?: number;
  /** `spec` (default): a mismatched `event:` name or a missing `[DONE]` is an error. `lenient`: a warning. */
  profile?: 'spec' | 'lenient';
  /** Called for each warning (a mismatched or missing `event:` name, a missing `[DONE]` in the lenient profile). */
  onWarning?: (warning: StreamWarning) => void;
}

/** Decoded events, plus whether the stream ended with `data: [DONE]`. */
export interface DecodedEventStream extends AsyncIterable<AnyStreamingEvent> {
  /** Whether `data: [DONE]` ended the stream (read it after the iteration ends). */
  readonly sawDone: boolean;
  /**
   * The same events in batches: the events each chunk of the body completes, in order (chunks that complete
   * none are skipped). One promise per chunk instead of one per event, for a consumer whose work per event
   * is synchronous. The body is read once: iterate the stream or its batches, not both.
   */
  batches(): AsyncIterable<readonly AnyStreamingEvent[]>;
}

/**
 * Decodes an SSE byte stream into parsed Open Responses events. Handles any chunking (byte by byte,
 * UTF-8 sequences split across chunks, CRLF/CR/LF, a CR at the end of one chunk and LF at the start of
 * the next), joins multi-line `data:`, ignores comments, `id:` and `retry:`, and stops at `[DONE]`.
 */
export function decodeSSE(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): DecodedEventStream {
  const state = { sawDone: false };
  const batches = () => new BatchIterator(body, new EventParser(options), state);
  return {
    get sawDone() {
      return state.sawDone;
    },
    [Symbol.asyncIterator]: () => new EventIterator(batches()),
    batches: () => ({ [Symbol.asyncIterator]: batches }),
  };
}

/** The events each chunk of the body completes, one array per chunk that completes any. */
class BatchIterator implements AsyncIterator<AnyStreamingEvent[]> {
  private readonly chunks: ChunkReader;
  private finished = false;

  constructor(
    body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
    private readonly parser: EventParser,
    private readonly state: { sawDone: boolean },
  ) {
    this.chunks = new ChunkReader(body);
  }

  async next(): Promise<IteratorResult<AnyStreamingEvent[], undefined>> {
    while (!this.finished) {
      // Made with the elements kind of objects: an empty literal changed kind at its first push, so that
      // every push of decodeSSE's was a call of V8's generic builtin instead of inlined.
      const events = arrayOfObjects<AnyStreamingEvent>();
      try {
        const chunk = await this.chunks.read();
        if (chunk.done) {
          this.finished = true;
          this.chunks.ended();
          this.parser.end();
        } else if (this.parser.feed(chunk.value!, events)) {
          this.state.sawDone = true;
          this.finished = true;
          await this.chunks.release();
        }
      } catch (error) {
        // for await does not call return() when next() rejects: release the body here.
        this.finished = true;
        await this.chunks.release();
        throw error;
      }
      if (events.length > 0) return { value: events, done: false };
    }
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    this.finished = true;
    await this.chunks.release();
    return { value: undefined, done: true };
  }
}

/**
 * The body's chunks, read straight from its reader (or its iterator): an async generator in between cost a
 * second promise and a generator resumption per chunk, a sixth of decoding a stream that arrives in 61-byte
 * chunks. The reader is taken at the first read, and released once (released early, it cancels the body
 * and so the connection behind it).
 */
class ChunkReader {
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private iterator: AsyncIterator<Uint8Array> | undefined;
  private released = false;

  constructor(private readonly body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>) {}

  read(): Promise<{ done?: boolean; value?: Uint8Array }> {
    if (this.reader) return this.reader.read();
    if (this.iterator) return this.iterator.next();
    const body = this.body;
    if ('getReader' in body) return (this.reader = body.getReader()).read();
    return (this.iterator = body[Symbol.asyncIterator]()).next();
  }

  /** The body ended: nothing to release. */
  ended(): void {
    this.released = true;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.reader) await this.reader.cancel().catch(() => {});
    else await this.iterator?.return?.();
  }
}

/**
 * The events of the batches one by one. A hand-written iterator rather than an async generator: the events
 * of a batch are handed out with already-resolved promises, which roughly halves the per-event cost.
 */
class EventIterator implements AsyncIterator<AnyStreamingEvent> {
  private batch: AnyStreamingEvent[] = [];
  private head = 0;

  constructor(private readonly batches: BatchIterator) {}

  next(): Promise<IteratorResult<AnyStreamingEvent>> {
    // Buffered events are handed out without entering an async function (one promise instead of several).
    if (this.head < this.batch.length) return Promise.resolve({ value: this.batch[this.head++]!, done: false });
    return this.pull();
  }

  private async pull(): Promise<IteratorResult<AnyStreamingEvent>> {
    const next = await this.batches.next();
    if (next.done) return next;
    this.batch = next.value;
    this.head = 1;
    return { value: next.value[0]!, done: false };
  }

  return(): Promise<IteratorResult<AnyStreamingEvent>> {
    return this.batches.return();
  }
}

/**
 * The Open Responses layer over the generic frame decoder (frames.ts): `[DONE]`, JSON, `type`, `event:` =
 * `type`, the size limit and a missing `[DONE]` as `SSEDecodeError`s or warnings. Synchronous.
 */
class EventParser {
  private readonly lenient: boolean;
  private readonly frames: FrameDecoder;
  private eventIndex = 0;
  private warnedMissingName = false;
  /** The spec type of the last event that had one, as the package's constant (see parseEvent). */
  private lastSpecType = '';
  private out: AnyStreamingEvent[] = arrayOfObjects();
  /** Made once: the frame decoder calls it for every frame. */
  private readonly onFrame = (name: string | undefined, data: string, _id: unknown, byteOffset: number): boolean => {
    // The length first: a payload's comparison with '[DONE]' is otherwise a call of V8's string equality.
    if (data.length === 6 && data === '[DONE]') return true;
    this.out.push(this.parseEvent(data, name, byteOffset));
    this.eventIndex++;
    return false;
  };

  constructor(private readonly options: DecodeOptions) {
    this.lenient = options.profile === 'lenient';
    this.frames = new FrameDecoder({ maxFrameBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES });
  }

  /** Parses one chunk, appending complete events to `out`; true once `[DONE]` is seen. */
  feed(chunk: Uint8Array, out: AnyStreamingEvent[]): boolean {
    this.out = out;
    try {
      return this.frames.feedFields(chunk, this.onFrame);
    } catch (error) {
      if (error instanceof SSEFrameError)
        throw new SSEDecodeError('event_too_large', this.eventIndex, error.byteOffset, error.detail);
      throw error;
    }
  }

  /** The end of the byte stream without `[DONE]`. */
  end(): void {
    // Per the SSE standard an event without its closing blank line is discarded at the end of the stream.
    const { byteOffset } = this.frames.end();
    this.problem('missing_done', 'the stream ended without data: [DONE]', byteOffset);
  }

  private problem(code: DecodeErrorCode, message: string, byteOffset: number): void {
    if (this.lenient && (code === 'event_type_mismatch' || code === 'missing_done')) {
      this.options.onWarning?.({ code, eventIndex: this.eventIndex, byteOffset, message });
      return;
    }
    throw new SSEDecodeError(code, this.eventIndex, byteOffset, message);
  }

  private parseEvent(payload: string, name: string | undefined, byteOffset: number): AnyStreamingEvent {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (error) {
      throw new SSEDecodeError(
        'invalid_json',
        this.eventIndex,
        byteOffset,
        `invalid JSON in data (${(error as Error).message}): ${payload.slice(0, 120)}`,
      );
    }
    // The type is read once: parsed objects of different event types have different shapes, so each read
    // is a megamorphic property load.
    const type = typeof parsed === 'object' && parsed !== null ? (parsed as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || Array.isArray(parsed)) {
      throw new SSEDecodeError(
        'not_an_event',
        this.eventIndex,
        byteOffset,
        `data is not an object with a string "type": ${payload.slice(0, 120)}`,
      );
    }
    const event = parsed as AnyStreamingEvent;
    // A spec type is swapped for the same text as the package's own constant, which V8 has interned with its
    // hash: every lookup by type after this one (the accumulator's and the checker's handler maps, the
    // validators' switch) compares pointers instead of hashing and comparing a freshly parsed string. Streams
    // send runs of one type, so the previous event's constant is tried first.
    let specType: string | undefined = this.lastSpecType;
    if (type !== specType) specType = SPEC_TYPES.get(type);
    if (specType !== undefined) (event as { type: string }).type = this.lastSpecType = specType;
    if (name !== undefined) {
      // The frame decoder hands out the name it was told to expect as that very string: a pointer comparison.
      if (name === specType) this.frames.expectName(specType);
      else if (name !== type)
        this.problem('event_type_mismatch', `"event: ${name}" does not match the body's type "${type}"`, byteOffset);
    } else if (!this.warnedMissingName) {
      // Many peers send data-only events; the spec wants `event:` to name the type. Once per stream, never fatal.
      this.warnedMissingName = true;
      this.options.onWarning?.({
        code: 'missing_event_field',
        eventIndex: this.eventIndex,
        byteOffset,
        message: `event ${this.eventIndex} has no "event:" field (the spec requires it to match "${type}")`,
      });
    }
    return event;
  }
}

/**
 * An empty array whose elements kind is already that of objects (an empty literal starts as small integers
 * and changes kind at its first push of an object), so that pushes into it stay monomorphic and inlined.
 */
function arrayOfObjects<T>(): T[] {
  const array: unknown[] = [null];
  array.length = 0;
  return array as T[];
}
