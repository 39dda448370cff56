import type { AnyStreamingEvent } from '../events.js';

export type DecodeErrorCode =
  | 'invalid_json'
  | 'not_an_event'
  | 'event_too_large'
  | 'event_type_mismatch'
  | 'missing_event_field'
  | 'missing_done';

/** A stream that cannot be decoded; names where: the event's index and the byte offset where it starts. */
export class SSEDecodeError extends Error {
  override name = 'SSEDecodeError';
  constructor(
    readonly code: DecodeErrorCode,
    readonly eventIndex: number,
    readonly byteOffset: number,
    detail: string,
  ) {
    super(`SSE event ${eventIndex} at byte ${byteOffset}: ${detail}`);
  }
}

export interface StreamWarning {
  code: DecodeErrorCode;
  eventIndex: number;
  byteOffset: number;
  message: string;
}

export interface DecodeOptions {
  /** The largest `data` payload of one event, in bytes (default 16 MiB). */
  maxEventBytes?: number;
  /** `spec` (default): a mismatched `event:` name or a missing `[DONE]` is an error. `lenient`: a warning. */
  profile?: 'spec' | 'lenient';
  onWarning?: (warning: StreamWarning) => void;
}

/** Decoded events, plus whether the stream ended with `data: [DONE]`. */
export interface DecodedEventStream extends AsyncIterable<AnyStreamingEvent> {
  readonly sawDone: boolean;
}

const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;
const LINE_BREAK = /\r\n|\r|\n/g;

/**
 * Decodes an SSE byte stream into parsed Open Responses events. Handles any chunking (byte by byte,
 * UTF-8 sequences split across chunks, CRLF/CR/LF, a CR at the end of one chunk and LF at the start of
 * the next), joins multi-line `data:`, ignores comments, `id:` and `retry:`, and stops at `[DONE]`.
 */
export function decodeSSE(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: DecodeOptions = {},
): DecodedEventStream {
  return decodeWith(body, () => new LineParser(options));
}

/** What turns bytes into events, fed chunk by chunk, synchronously (the benchmark swaps in another to compare). */
export interface SSEParser {
  /** Parses one chunk, appending complete events to `out`; true once `[DONE]` is seen. */
  feed(chunk: Uint8Array, out: AnyStreamingEvent[]): boolean;
  /** The end of the byte stream without `[DONE]`. */
  end(): void;
}

/** Events of `body` as a parser from `createParser` finds them (not exported from the package: `decodeSSE` is the API). */
export function decodeWith(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  createParser: () => SSEParser,
): DecodedEventStream {
  const state = { sawDone: false };
  return {
    get sawDone() {
      return state.sawDone;
    },
    [Symbol.asyncIterator]: () => new EventIterator(body, createParser(), state),
  };
}

/**
 * A hand-written iterator rather than an async generator: events parsed from one chunk are handed out
 * from a queue with already-resolved promises, which roughly halves the per-event cost of decoding.
 */
class EventIterator implements AsyncIterator<AnyStreamingEvent> {
  private readonly chunks: AsyncIterator<Uint8Array>;
  private queue: AnyStreamingEvent[] = [];
  private head = 0;
  private finished = false;

  constructor(
    body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
    private readonly parser: SSEParser,
    private readonly state: { sawDone: boolean },
  ) {
    this.chunks = iterate(body)[Symbol.asyncIterator]();
  }

  next(): Promise<IteratorResult<AnyStreamingEvent>> {
    // Buffered events are handed out without entering an async function (one promise instead of several).
    if (this.head < this.queue.length) return Promise.resolve({ value: this.queue[this.head++]!, done: false });
    return this.pull();
  }

  private async pull(): Promise<IteratorResult<AnyStreamingEvent>> {
    for (;;) {
      if (this.head < this.queue.length) return { value: this.queue[this.head++]!, done: false };
      if (this.finished) return { value: undefined, done: true };
      this.queue = [];
      this.head = 0;
      const chunk = await this.chunks.next();
      try {
        if (chunk.done) {
          this.finished = true;
          this.parser.end();
          continue;
        }
        if (this.parser.feed(chunk.value, this.queue)) {
          this.state.sawDone = true;
          this.finished = true;
          await this.chunks.return?.();
        }
      } catch (error) {
        // for await does not call return() when next() rejects: release the body here.
        this.finished = true;
        await this.chunks.return?.();
        throw error;
      }
    }
  }

  async return(): Promise<IteratorResult<AnyStreamingEvent>> {
    this.finished = true;
    await this.chunks.return?.();
    return { value: undefined, done: true };
  }
}

/** The SSE line protocol, fed chunk by chunk; synchronous. */
class LineParser implements SSEParser {
  private readonly maxEventBytes: number;
  private readonly lenient: boolean;
  /** The text of the line not yet ended, in the pieces it came in. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** The start of a multi-byte UTF-8 sequence that the next chunk completes. */
  private carry: Uint8Array | undefined;
  private skipLeadingLF = false;
  /** No text decoded yet (a byte order mark may come first). */
  private atStart = true;
  private offset = 0; // bytes consumed up to the current line
  private eventIndex = 0;
  private eventStart = -1;
  private eventName: string | undefined;
  private data: string[] = [];
  private warnedMissingName = false;
  private dataBytes = 0;
  /** Where the block wholeBlock() just took ends. */
  private blockEnd = 0;
  /** Whether the text being split is pure ASCII, so that byte lengths are string lengths. */
  private ascii = true;

  constructor(private readonly options: DecodeOptions) {
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.lenient = options.profile === 'lenient';
  }

  /** Parses one chunk, appending complete events to `out`; true once `[DONE]` is seen. */
  feed(chunk: Uint8Array, out: AnyStreamingEvent[]): boolean {
    let bytes = chunk;
    if (this.carry) {
      bytes = new Uint8Array(this.carry.byteLength + chunk.byteLength);
      bytes.set(this.carry);
      bytes.set(chunk, this.carry.byteLength);
      this.carry = undefined;
    }
    const complete = completeSequencesLength(bytes);
    if (complete < bytes.byteLength) {
      this.carry = bytes.slice(complete);
      bytes = bytes.subarray(0, complete);
    }
    let chunkText = decodeUtf8(bytes);
    // One UTF-16 unit per byte means one byte per character (an invalid byte decodes to one U+FFFD):
    // string lengths are byte lengths. Cheaper than scanning the text for non-ASCII characters.
    const chunkAscii = bytes.byteLength === chunkText.length;
    if (this.atStart && chunkText.length > 0) {
      // The SSE standard drops one byte order mark at the start of the stream.
      this.atStart = false;
      if (chunkText.charCodeAt(0) === 0xfeff) {
        chunkText = chunkText.slice(1);
        this.offset += 3;
      }
    }
    if (this.skipLeadingLF && chunkText.length > 0) {
      // A CR ended the previous chunk; a LF starting this one belongs to the same line break.
      if (chunkText.charCodeAt(0) === 10) {
        chunkText = chunkText.slice(1);
        this.offset += 1;
      }
      this.skipLeadingLF = false;
    }
    // The leftover partial line keeps the flag of the text it came from.
    this.ascii = (this.pendingLength === 0 || this.ascii) && (chunkAscii || !NON_ASCII.test(chunkText));
    if (chunkText.indexOf('\n') < 0 && chunkText.indexOf('\r') < 0) {
      // Still inside a line (a large event arriving in pieces): keep the piece and join the line once, when
      // it ends. Joining at every chunk made a 4 MiB event in 16 KiB chunks cost 256 copies of it.
      this.keepPending(chunkText);
      return false;
    }
    // One join makes one flat string; `kept + chunkText` made a rope that the first search copied again.
    let pending = chunkText;
    if (this.pending.length > 0) {
      this.pending.push(chunkText);
      pending = this.pending.join('');
    }
    this.pending = [];
    this.pendingLength = 0;
    let start = 0;
    if (pending.indexOf('\r') < 0) {
      // The common case: LF line breaks only.
      for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
        const block = this.wholeBlock(pending, start, end);
        if (block !== undefined && block !== 'unfinished') {
          start = this.blockEnd;
          if (block === 'done') return true;
          out.push(block);
          continue;
        }
        const result = this.line(pending, start, end, 1);
        start = end + 1;
        if (result === 'done') return true;
        if (result) out.push(result);
        // The data line after this `event:` line has no line break yet, so nothing after it has one.
        if (block === 'unfinished') break;
      }
    } else {
      LINE_BREAK.lastIndex = 0;
      let match: RegExpExecArray | null;
      while ((match = LINE_BREAK.exec(pending)) !== null) {
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (match[0] === '\r' && match.index === pending.length - 1) this.skipLeadingLF = true;
        const result = this.line(pending, start, match.index, match[0].length);
        start = match.index + match[0].length;
        if (result === 'done') return true;
        if (result) out.push(result);
      }
    }
    this.keepPending(pending.slice(start));
    return false;
  }

  /** Keeps text of a line that has not ended yet. */
  private keepPending(text: string): void {
    if (text === '') return;
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength > this.maxEventBytes)
      this.problem('event_too_large', `a line exceeds ${this.maxEventBytes} bytes`);
  }

  /** The end of the byte stream without `[DONE]`. */
  end(): void {
    this.carry = undefined;
    // Per the SSE standard an event without its closing blank line is discarded at the end of the stream.
    this.problem('missing_done', 'the stream ended without data: [DONE]');
  }

  private problem(code: DecodeErrorCode, message: string): void {
    if (this.lenient && (code === 'event_type_mismatch' || code === 'missing_done')) {
      this.options.onWarning?.({ code, eventIndex: this.eventIndex, byteOffset: this.currentEventOffset(), message });
      return;
    }
    throw new SSEDecodeError(code, this.eventIndex, this.currentEventOffset(), message);
  }

  /** Where the current event starts; before its first line is complete, that is where the unfinished line starts. */
  private currentEventOffset(): number {
    return this.eventStart >= 0 ? this.eventStart : this.offset;
  }

  /**
   * The block every encoder writes, `event: <type>` LF `data: <json>` LF LF, taken whole when it starts at
   * `from` (its first line ending at `end`) with no event half-read: one slice for the payload instead of
   * three line visits (non-ASCII text has its bytes counted for the offsets). Anything else goes line by line.
   */
  private wholeBlock(text: string, from: number, end: number): AnyStreamingEvent | 'done' | 'unfinished' | undefined {
    if (
      this.eventStart >= 0 ||
      this.data.length > 0 ||
      !text.startsWith('event: ', from) ||
      !text.startsWith('data: ', end + 1)
    )
      return undefined;
    const dataEnd = text.indexOf('\n', end + 7);
    // The data line goes on in the next chunk: searching the text for a line break again would be in vain.
    if (dataEnd < 0) return 'unfinished';
    if (text.charCodeAt(dataEnd + 1) !== 10) return undefined;
    const dataBytes = this.ascii ? dataEnd - (end + 7) : utf8Length(text, end + 7, dataEnd);
    if (dataBytes + 1 > this.maxEventBytes) return undefined;
    const payload = text.slice(end + 7, dataEnd);
    this.eventStart = this.offset;
    this.offset += this.ascii ? dataEnd + 2 - from : utf8Length(text, from, end + 7) + dataBytes + 2;
    this.blockEnd = dataEnd + 2;
    return this.dispatch(payload, text.slice(from + 7, end));
  }

  /** Handles the line `text[from, to)`; returns the event when a blank line completes one. Takes indices so the common lines cost one slice. */
  private line(
    text: string,
    from: number,
    to: number,
    terminatorBytes: number,
  ): AnyStreamingEvent | 'done' | undefined {
    const start = this.offset;
    const contentBytes = this.ascii ? to - from : utf8Length(text, from, to);
    this.offset += contentBytes + terminatorBytes;
    if (from === to) {
      if (this.data.length === 0) {
        this.eventName = undefined;
        this.eventStart = -1;
        return undefined;
      }
      const payload = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
      const name = this.eventName;
      this.data = [];
      this.dataBytes = 0;
      this.eventName = undefined;
      return this.dispatch(payload, name);
    }
    if (text.charCodeAt(from) === 58 /* ':' */) return undefined; // comment
    if (this.eventStart < 0) this.eventStart = start;
    // The two lines every event has, in the form every encoder writes them, without the general field split.
    if (text.startsWith('data: ', from)) return this.addData(text.slice(from + 6, to), contentBytes - 6);
    if (text.startsWith('event: ', from)) {
      this.eventName = text.slice(from + 7, to);
      return undefined;
    }
    const content = text.slice(from, to);
    const colon = content.indexOf(':');
    const field = colon < 0 ? content : content.slice(0, colon);
    let value = colon < 0 ? '' : content.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') return this.addData(value, utf8Length(value, 0, value.length));
    if (field === 'event') this.eventName = value;
    // `id`, `retry` and unknown fields are ignored, as the SSE standard says.
    return undefined;
  }

  /** A complete event's data: `[DONE]`, or the parsed event (the next one starts fresh). */
  private dispatch(payload: string, name: string | undefined): AnyStreamingEvent | 'done' {
    if (payload === '[DONE]') return 'done';
    const event = this.parseEvent(payload, name);
    this.eventIndex++;
    this.eventStart = -1;
    return event;
  }

  private addData(value: string, bytes: number): undefined {
    this.dataBytes += bytes + 1;
    if (this.dataBytes > this.maxEventBytes)
      this.problem('event_too_large', `data exceeds ${this.maxEventBytes} bytes`);
    this.data.push(value);
    return undefined;
  }

  private parseEvent(payload: string, name: string | undefined): AnyStreamingEvent {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (error) {
      throw new SSEDecodeError(
        'invalid_json',
        this.eventIndex,
        this.eventStart,
        `invalid JSON in data (${(error as Error).message}): ${payload.slice(0, 120)}`,
      );
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      typeof (parsed as { type?: unknown }).type !== 'string'
    ) {
      throw new SSEDecodeError(
        'not_an_event',
        this.eventIndex,
        this.eventStart,
        `data is not an object with a string "type": ${payload.slice(0, 120)}`,
      );
    }
    const event = parsed as AnyStreamingEvent;
    if (name !== undefined && name !== event.type)
      this.problem('event_type_mismatch', `"event: ${name}" does not match the body's type "${event.type}"`);
    if (name === undefined && !this.warnedMissingName) {
      // Many peers send data-only events; the spec wants `event:` to name the type. Once per stream, never fatal.
      this.warnedMissingName = true;
      this.options.onWarning?.({
        code: 'missing_event_field',
        eventIndex: this.eventIndex,
        byteOffset: this.currentEventOffset(),
        message: `event ${this.eventIndex} has no "event:" field (the spec requires it to match "${event.type}")`,
      });
    }
    return event;
  }
}

async function* iterate(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stopping early (at [DONE], on an error, or when the consumer breaks) releases the connection.
    await reader.cancel().catch(() => {});
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

/** The length of `bytes` without a multi-byte UTF-8 sequence cut off at its end (which the next chunk completes). */
function completeSequencesLength(bytes: Uint8Array): number {
  const length = bytes.byteLength;
  for (let i = length - 1; i >= 0 && i >= length - 3; i--) {
    const byte = bytes[i]!;
    if (byte < 0x80) return length; // ASCII: nothing is cut
    if (byte >= 0xc0) {
      // A lead byte: does its sequence fit in what is left?
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length - i < needed ? i : length;
    }
  }
  return length;
}

type NodeBufferClass = {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'utf8'): string };
};
const NodeBuffer = (globalThis as { Buffer?: NodeBufferClass }).Buffer;
const textDecoder = new TextDecoder('utf-8');

/**
 * UTF-8 of complete sequences. Where the runtime has a Buffer (Node, Bun, Deno) it decodes: Node 20's
 * TextDecoder is about 8x slower, which was a tenth of the whole decode + validate + accumulate pipeline.
 */
const decodeUtf8: (bytes: Uint8Array) => string = NodeBuffer
  ? (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  : (bytes) => textDecoder.decode(bytes);

/** The UTF-8 byte length of `text[from, to)`, for byte offsets in errors and the size limit. */
function utf8Length(text: string, from: number, to: number): number {
  let bytes = to - from;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // surrogate pair: 4 bytes for 2 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}
