/**
 * The generic layer of Server-Sent Events: bytes in, frames (`event`, `data`, `id`, byte offset) out. It
 * knows nothing of Open Responses (decodeSSE builds that layer on it) and is what any SSE consumer can use,
 * an upstream's Chat Completions or Messages stream included. One line, and the data of one event, are
 * bounded in bytes: past the bound it throws an `SSEFrameError` and keeps nothing more.
 */

/** One dispatched event of an SSE stream. */
export interface SSEFrame {
  /** The `event:` field, undefined when the event has none (the SSE standard's `message`). */
  event: string | undefined;
  /** The `data:` lines, joined with `\n`. */
  data: string;
  /** The last event ID: the latest `id:` field so far in the stream (it carries over), undefined before any. */
  id: string | undefined;
  /** Where the event's first line starts, in bytes from the start of the stream. */
  byteOffset: number;
}

/** Why the frame decoder stopped: a line or an event over its byte bound. */
export type SSEFrameErrorCode = 'frame_too_large';

/** A line, or the data of one event, over the decoder's bound. */
export class SSEFrameError extends Error {
  /** `'SSEFrameError'`. */
  override name = 'SSEFrameError';
  constructor(
    /** What is over the bound. */
    readonly code: SSEFrameErrorCode,
    /** Where the line or event starts, in bytes from the start of the stream. */
    readonly byteOffset: number,
    /** The bound, in bytes. */
    readonly limit: number,
    /** What is over the bound (`a line exceeds 1024 bytes`). */
    readonly detail: string,
  ) {
    super(`SSE frame at byte ${byteOffset}: ${detail}`);
  }
}

/** What `createSSEFrameDecoder` and `createSSEFrameStream` take. */
export interface SSEFrameDecoderOptions {
  /** The largest line, and the largest `data` of one event, in bytes (default 16 MiB). */
  maxFrameBytes?: number;
  /** Called for each comment line (`: keep-alive`) with its text after the colon and where it starts. */
  onComment?: (text: string, byteOffset: number) => void;
}

/** How an SSE stream ended: whether an event was left without its closing blank line (the standard drops it). */
export interface SSEFrameEnd {
  /** Whether bytes were left after the last blank line (an event the standard drops). */
  unfinished: boolean;
  /** Where the unfinished event (or line) starts; the stream's length when nothing was left. */
  byteOffset: number;
}

/**
 * The frame decoder, fed chunk by chunk, synchronously. Handles any chunking: UTF-8 sequences split across
 * chunks, CR, LF and CRLF (a CR at the end of one chunk and the LF at the start of the next), a leading byte
 * order mark, multi-line `data:`; ignores `retry:` and unknown fields as the standard says.
 */
export interface SSEFrameDecoder {
  /** The frames that `chunk` completes, in order. Throws `SSEFrameError` past the bound. */
  decode(chunk: Uint8Array): SSEFrame[];
  /**
   * The lower-level form of `decode`: calls `onFrame` for each complete frame, and stops at once (the rest
   * of the chunk unread) when it returns true; returns whether it stopped.
   */
  feed(chunk: Uint8Array, onFrame: (frame: SSEFrame) => boolean | undefined): boolean;
  /** The end of the byte stream. */
  end(): SSEFrameEnd;
  /** Comment lines seen so far (keep-alives: a caller can tell them apart from events). */
  readonly comments: number;
  /** Bytes taken so far (up to the last complete line). */
  readonly bytesRead: number;
}

/** An SSE frame decoder (see `SSEFrameDecoder`). */
export function createSSEFrameDecoder(options: SSEFrameDecoderOptions = {}): SSEFrameDecoder {
  return new FrameDecoder(options);
}

/** The frame decoder as a web `TransformStream`: bytes in, `SSEFrame` objects out; errors with `SSEFrameError`. */
export function createSSEFrameStream(options: SSEFrameDecoderOptions = {}): TransformStream<Uint8Array, SSEFrame> {
  const decoder = new FrameDecoder(options);
  return new TransformStream<Uint8Array, SSEFrame>({
    transform(chunk, controller) {
      decoder.feed(chunk, (frame) => {
        controller.enqueue(frame);
        return undefined;
      });
    },
    flush() {
      decoder.end();
    },
  });
}

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
const LINE_BREAK = /\r\n|\r|\n/g;

/** Returned by a line visit: a frame was handed out and its handler asked to stop. */
const STOP = 1;
/** Returned by wholeBlock: the block's data line has not ended yet in this text. */
const UNFINISHED = 2;

/** The decoder behind `createSSEFrameDecoder` (decodeSSE builds on it directly). */
export class FrameDecoder implements SSEFrameDecoder {
  private readonly maxBytes: number;
  private readonly onComment: ((text: string, byteOffset: number) => void) | undefined;
  /** The text of the line not yet ended, in the pieces it came in, and its length in bytes. */
  private pending: string[] = [];
  private pendingBytes = 0;
  /** The start of a multi-byte UTF-8 sequence that the next chunk completes. */
  private carry: Uint8Array | undefined;
  private skipLeadingLF = false;
  /** No text decoded yet (a byte order mark may come first). */
  private atStart = true;
  private offset = 0; // bytes consumed up to the current line
  private eventStart = -1;
  private eventName: string | undefined;
  private lastId: string | undefined;
  private data: string[] = [];
  private dataBytes = 0;
  /** Where the block wholeBlock() just took ends. */
  private blockEnd = 0;
  /** Whether the text being split is pure ASCII, so that byte lengths are string lengths. */
  private ascii = true;
  private sink: FrameSink = () => false;
  /**
   * The name the next events are expected to have (see expectName), and its block's first line and a half,
   * `event: <name>` LF `data: `, compared where a block starts: one comparison instead of a line search, the
   * field checks, a slice of the name and its comparison, which V8 makes in its runtime for a sliced
   * string (~50 ns). Anchored, a miss costs the same as a match, whatever the input.
   */
  private expectedName: string | undefined;
  private expectedStart: BlockStart | undefined;
  /**
   * The bytes the text being split was decoded from, how many more bytes than code units came before its
   * start (a byte order mark, a LF of a CRLF split across chunks), and a view of them made at the first
   * expected block: while the text is ASCII, its code unit i is the byte i + textShift.
   */
  private bytes: Uint8Array = new Uint8Array(0);
  private textShift = 0;
  private view: DataView | undefined;
  /** Whether the next block is tried against expectedStart: from expectName until a miss. */
  private armed = false;
  comments = 0;

  constructor(options: SSEFrameDecoderOptions = {}) {
    this.maxBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.onComment = options.onComment;
  }

  get bytesRead(): number {
    return this.offset;
  }

  decode(chunk: Uint8Array): SSEFrame[] {
    const out: SSEFrame[] = [];
    this.feed(chunk, (frame) => {
      out.push(frame);
      return undefined;
    });
    return out;
  }

  feed(chunk: Uint8Array, onFrame: (frame: SSEFrame) => boolean | undefined): boolean {
    return this.feedFields(
      chunk,
      (event, data, id, byteOffset) => onFrame(new Frame(event, data, id, byteOffset)) === true,
    );
  }

  /**
   * `feed` with each frame's fields passed as arguments, without a frame object (what decodeSSE uses: one
   * allocation less per event on its hot path).
   */
  feedFields(chunk: Uint8Array, sink: FrameSink): boolean {
    this.sink = sink;
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
    let chunkBytes = bytes.byteLength;
    // One UTF-16 unit per byte means one byte per character (an invalid byte decodes to one U+FFFD):
    // string lengths are byte lengths. Cheaper than scanning the text for non-ASCII characters.
    const chunkAscii = chunkBytes === chunkText.length;
    if (this.atStart && chunkText.length > 0) {
      // The SSE standard drops one byte order mark at the start of the stream.
      this.atStart = false;
      if (chunkText.charCodeAt(0) === 0xfeff) {
        chunkText = chunkText.slice(1);
        this.offset += 3;
        chunkBytes -= 3;
      }
    }
    if (this.skipLeadingLF && chunkText.length > 0) {
      // A CR ended the previous chunk; a LF starting this one belongs to the same line break.
      if (chunkText.charCodeAt(0) === 10) {
        chunkText = chunkText.slice(1);
        this.offset += 1;
        chunkBytes -= 1;
      }
      this.skipLeadingLF = false;
    }
    this.bytes = bytes;
    this.textShift = bytes.byteLength - chunkText.length;
    this.view = undefined;
    // The leftover partial line keeps the flag of the text it came from.
    this.ascii = (this.pendingBytes === 0 || this.ascii) && (chunkAscii || !NON_ASCII.test(chunkText));
    if (chunkText.indexOf('\n') < 0 && chunkText.indexOf('\r') < 0) {
      // Still inside a line (a large event arriving in pieces): keep the piece and join the line once, when
      // it ends. Joining at every chunk made a 4 MiB event in 16 KiB chunks cost 256 copies of it.
      this.keepPending(chunkText, chunkBytes);
      return false;
    }
    // The bytes of the text split below, so that what is left after its last line break needs no counting.
    const splitBytes = this.pendingBytes + chunkBytes;
    const splitOffset = this.offset;
    let text = chunkText;
    let start = 0;
    if (chunkText.indexOf('\r') < 0) {
      // The common case: LF line breaks only (what is kept from before has no CR: a CR ends a line).
      if (this.pending.length > 0) {
        // The line left unfinished ends in this chunk: one join makes that line alone (`kept + chunkText` made
        // a rope that the first search copied again; joining the whole chunk copied 16 KiB per network chunk).
        const end = chunkText.indexOf('\n');
        this.pending.push(chunkText.slice(0, end));
        const line = this.pending.join('');
        // The kept pieces' bytes are known: only this chunk's piece is counted (recounting the joined line
        // was a twentieth of decoding non-ASCII text in 61-byte chunks).
        const lineBytes = this.pendingBytes + (this.ascii ? end : utf8Length(chunkText, 0, end));
        this.pending = [];
        this.pendingBytes = 0;
        if (this.line(line, 0, line.length, 1, lineBytes)) return true;
        start = end + 1;
      }
      for (;;) {
        if (this.armed && this.eventStart < 0 && this.data.length === 0) {
          const expected = this.expectedBlock(text, start);
          if (expected === STOP) return true;
          if (expected === 0) {
            start = this.blockEnd;
            continue;
          }
        }
        const end = text.indexOf('\n', start);
        if (end < 0) break;
        const block = this.wholeBlock(text, start, end);
        if (block === STOP) return true;
        if (block === 0) {
          start = this.blockEnd;
          continue;
        }
        const stopped = this.line(text, start, end, 1);
        start = end + 1;
        if (stopped) return true;
        // The data line after this `event:` line has no line break yet, so nothing after it has one.
        if (block === UNFINISHED) break;
      }
    } else {
      if (this.pending.length > 0) {
        this.pending.push(chunkText);
        text = this.pending.join('');
      }
      this.pending = [];
      this.pendingBytes = 0;
      LINE_BREAK.lastIndex = 0;
      let match: RegExpExecArray | null;
      while ((match = LINE_BREAK.exec(text)) !== null) {
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (match[0] === '\r' && match.index === text.length - 1) this.skipLeadingLF = true;
        const stopped = this.line(text, start, match.index, match[0].length);
        start = match.index + match[0].length;
        if (stopped) return true;
      }
    }
    if (start < text.length) this.keepPending(text.slice(start), splitBytes - (this.offset - splitOffset));
    return false;
  }

  /**
   * Tells the decoder that the frame its sink is handling had the event name `name` and that the next ones
   * likely have it too (decodeSSE calls it with the spec type an event matched): a block that starts with
   * `event: <name>` LF `data: ` is then taken by one comparison, and handed out with `name` itself (the same
   * string, so that the caller's comparison is of pointers). Frames are the same with or without it.
   */
  expectName(name: string): void {
    if (name !== this.expectedName) {
      this.expectedName = name;
      this.expectedStart = blockStartOf(name);
    }
    this.armed = true;
  }

  /** The block at `from` when it starts with expectedStart: as wholeBlock, or -1 (and disarmed) when it does not. */
  private expectedBlock(text: string, from: number): number {
    const start = this.expectedStart!;
    if (
      this.ascii && start.count > 0 ? !this.bytesStartWith(start, from + this.textShift) : !start.startsAt(text, from)
    ) {
      this.armed = false;
      return -1;
    }
    // The start ends after `data: `: the name's line ends 7 code units before.
    return this.takeBlock(text, from, from + start.length - 7, this.expectedName);
  }

  /**
   * Whether the chunk's bytes at `at` are the block start's, eight at a time as doubles (in ASCII text a code
   * unit is its byte). Unrolled: a loop over the words cost twice as much, and the sticky pattern's test ~390
   * instructions an event (the builtin, its match record and the matcher).
   */
  private bytesStartWith(start: BlockStart, at: number): boolean {
    const bytes = this.bytes;
    const length = start.length;
    if (at + length > bytes.length) return false;
    const view = this.view ?? (this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const words = start.words;
    const count = start.count;
    return (
      view.getFloat64(at + length - 8, true) === words[6] &&
      view.getFloat64(at, true) === words[0] &&
      (count < 3 || view.getFloat64(at + 8, true) === words[1]) &&
      (count < 4 || view.getFloat64(at + 16, true) === words[2]) &&
      (count < 5 || view.getFloat64(at + 24, true) === words[3]) &&
      (count < 6 || view.getFloat64(at + 32, true) === words[4]) &&
      (count < 7 || view.getFloat64(at + 40, true) === words[5])
    );
  }

  /** Keeps text of a line that has not ended yet; past the bound it throws before keeping it. */
  private keepPending(text: string, bytes: number): void {
    if (text === '') return;
    if (this.pendingBytes + bytes > this.maxBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      throw this.tooLarge(`a line exceeds ${this.maxBytes} bytes`);
    }
    this.pending.push(text);
    this.pendingBytes += bytes;
  }

  end(): SSEFrameEnd {
    this.carry = undefined;
    const unfinished = this.pendingBytes > 0 || this.data.length > 0 || this.eventStart >= 0;
    const byteOffset = this.eventStart >= 0 ? this.eventStart : this.offset;
    this.pending = [];
    this.pendingBytes = 0;
    this.data = [];
    // Per the SSE standard an event without its closing blank line is discarded at the end of the stream.
    return { unfinished, byteOffset };
  }

  private tooLarge(detail: string): SSEFrameError {
    const at = this.eventStart >= 0 ? this.eventStart : this.offset;
    this.data = [];
    this.dataBytes = 0;
    return new SSEFrameError('frame_too_large', at, this.maxBytes, detail);
  }

  /**
   * The block every encoder writes, `event: <type>` LF `data: <json>` LF LF, taken whole when it starts at
   * `from` (its first line ending at `end`) with no event half-read: one slice for the payload instead of
   * three line visits (non-ASCII text has its bytes counted for the offsets). Returns 0 when taken, STOP when
   * taken and the handler stopped, UNFINISHED, or -1: anything else goes line by line.
   */
  private wholeBlock(text: string, from: number, end: number): number {
    if (this.eventStart >= 0 || this.data.length > 0) return -1;
    if (isDataField(text, from)) return this.dataBlock(text, from, end);
    if (!isEventField(text, from) || !isDataField(text, end + 1)) return -1;
    return this.takeBlock(text, from, end, undefined);
  }

  /**
   * A data-only block, `data: <payload>` LF LF (what Chat Completions upstreams and data-only peers send), whose
   * data line ends at `end`: taken whole with one slice, as takeBlock takes a named one; two line visits and the
   * data list cost ~600 instructions a frame. The same answers as wholeBlock.
   */
  private dataBlock(text: string, from: number, end: number): number {
    // Bounds first (see takeBlock); a blank line not in this text yet goes line by line.
    if (end + 1 === text.length || text.charCodeAt(end + 1) !== 10) return -1;
    const dataBytes = this.ascii ? end - from - 6 : utf8Length(text, from + 6, end);
    // Over the bound, line() throws what it throws for the line.
    if (dataBytes + 6 > this.maxBytes) return -1;
    const at = this.offset;
    this.offset += dataBytes + 8;
    this.blockEnd = end + 2;
    return this.sink(undefined, text.slice(from + 6, end), this.lastId, at) ? STOP : 0;
  }

  /**
   * The block at `from` whose `event:` line ends at `end` and is followed by `data: `, handed out with
   * `name` when given (else the line's value); the same answers as wholeBlock.
   */
  private takeBlock(text: string, from: number, end: number, name: string | undefined): number {
    const dataEnd = text.indexOf('\n', end + 7);
    // The data line goes on in the next chunk: searching the text for a line break again would be in vain.
    if (dataEnd < 0) return UNFINISHED;
    // Bounds first: a read past the end makes V8 recompile every charCodeAt here as a call of the builtin.
    if (dataEnd + 1 === text.length || text.charCodeAt(dataEnd + 1) !== 10) return -1;
    const dataBytes = this.ascii ? dataEnd - (end + 7) : utf8Length(text, end + 7, dataEnd);
    if (dataBytes + 1 > this.maxBytes || end - from > this.maxBytes) return -1;
    const at = this.offset;
    this.offset += this.ascii ? dataEnd + 2 - from : utf8Length(text, from, end + 7) + dataBytes + 2;
    this.blockEnd = dataEnd + 2;
    return this.sink(name ?? text.slice(from + 7, end), text.slice(end + 7, dataEnd), this.lastId, at) ? STOP : 0;
  }

  /**
   * Handles the line `text[from, to)` of `contentBytes` bytes (counted here when not given); true when it
   * completed a frame whose handler asked to stop.
   */
  private line(
    text: string,
    from: number,
    to: number,
    terminatorBytes: number,
    contentBytes = this.ascii ? to - from : utf8Length(text, from, to),
  ): boolean {
    const start = this.offset;
    if (contentBytes > this.maxBytes) {
      if (this.eventStart < 0) this.eventStart = start;
      throw this.tooLarge(`a line exceeds ${this.maxBytes} bytes`);
    }
    this.offset += contentBytes + terminatorBytes;
    if (from === to) {
      if (this.data.length === 0) {
        this.eventName = undefined;
        this.eventStart = -1;
        return false;
      }
      const data = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
      const name = this.eventName;
      const at = this.eventStart;
      this.data = [];
      this.dataBytes = 0;
      this.eventName = undefined;
      this.eventStart = -1;
      return this.sink(name, data, this.lastId, at);
    }
    if (text.charCodeAt(from) === 58 /* ':' */) {
      this.comments++;
      if (this.onComment) this.onComment(text.slice(from + 1, to), start);
      return false;
    }
    if (this.eventStart < 0) this.eventStart = start;
    // The two lines every event has, in the form every encoder writes them, without the general field split.
    if (isDataField(text, from)) {
      this.addData(text.slice(from + 6, to), contentBytes - 6);
      return false;
    }
    if (isEventField(text, from)) {
      this.eventName = text.slice(from + 7, to);
      return false;
    }
    const content = text.slice(from, to);
    const colon = content.indexOf(':');
    const field = colon < 0 ? content : content.slice(0, colon);
    let value = colon < 0 ? '' : content.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.addData(value, utf8Length(value, 0, value.length));
    else if (field === 'event') this.eventName = value;
    // The standard ignores an id with a NULL in it; `retry` and unknown fields are ignored here.
    else if (field === 'id' && value.indexOf('\0') < 0) this.lastId = value;
    return false;
  }

  private addData(value: string, bytes: number): void {
    this.dataBytes += bytes + 1;
    if (this.dataBytes > this.maxBytes) throw this.tooLarge(`data exceeds ${this.maxBytes} bytes`);
    this.data.push(value);
  }
}

/** A frame's fields as arguments; true stops the decoder. */
export type FrameSink = (
  event: string | undefined,
  data: string,
  id: string | undefined,
  byteOffset: number,
) => boolean;

/** A class rather than an object literal: one hidden class for every frame. */
class Frame implements SSEFrame {
  constructor(
    readonly event: string | undefined,
    readonly data: string,
    readonly id: string | undefined,
    readonly byteOffset: number,
  ) {}
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * `event: <name>` LF `data: `, the start of a block named `name`: as 8-byte words (for ASCII text) and as a
 * sticky pattern (for other text, and names over 42 characters).
 */
class BlockStart {
  /** The start's length in code units (and in bytes, where the words are used). */
  readonly length: number;
  /**
   * The start's UTF-8 as little-endian doubles: words[k] at byte 8k for k < count - 1, words[6] at its last
   * 8 bytes. Doubles are equal only with the same bits, but for NaN (a seventh byte over 0xef: never in an
   * ASCII start, and a NaN in the text only compares unequal, which sends the block line by line) and ±0
   * (zero bytes, which a start has not).
   */
  readonly words = new Float64Array(7);
  /** How many words cover the start (2 to 7); 0 when it does not fit, or is not ASCII. */
  readonly count: number;
  private readonly sticky: RegExp;

  constructor(name: string) {
    const text = `event: ${name}\ndata: `;
    this.length = text.length;
    const bytes = new TextEncoder().encode(text);
    const count = Math.ceil(bytes.length / 8);
    this.count = bytes.length === text.length && count <= 7 ? count : 0;
    const view = new DataView(bytes.buffer);
    for (let k = 0; k < this.count - 1; k++) this.words[k] = view.getFloat64(8 * k, true);
    if (this.count > 0) this.words[6] = view.getFloat64(bytes.length - 8, true);
    this.sticky = new RegExp(text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'y');
  }

  /** Whether `text` has the start at `from` (by the pattern: any text). */
  startsAt(text: string, from: number): boolean {
    this.sticky.lastIndex = from;
    return this.sticky.test(text);
  }
}

/**
 * The block starts, one per name, shared by every decoder (a stream decoded tries a handful of names;
 * compiling a pattern costs microseconds). The names are the spec's event types, which decodeSSE passes;
 * any beyond the bound are made and not kept.
 */
const blockStarts = new Map<string, BlockStart>();
function blockStartOf(name: string): BlockStart {
  let start = blockStarts.get(name);
  if (start === undefined) {
    start = new BlockStart(name);
    if (blockStarts.size < 256) blockStarts.set(name, start);
  }
  return start;
}

// Whether `event: ` and `data: ` start at `at`, code unit by code unit: every event takes both checks, and
// these cost 15% less of the frame split than `startsWith` (the same loop over the prefix's own code units
// gained nothing on Node 20).
const isEventField = (text: string, at: number) =>
  text.charCodeAt(at) === 101 && // e
  text.charCodeAt(at + 1) === 118 && // v
  text.charCodeAt(at + 2) === 101 && // e
  text.charCodeAt(at + 3) === 110 && // n
  text.charCodeAt(at + 4) === 116 && // t
  text.charCodeAt(at + 5) === 58 && // :
  text.charCodeAt(at + 6) === 32; // space
const isDataField = (text: string, at: number) =>
  text.charCodeAt(at) === 100 && // d
  text.charCodeAt(at + 1) === 97 && // a
  text.charCodeAt(at + 2) === 116 && // t
  text.charCodeAt(at + 3) === 97 && // a
  text.charCodeAt(at + 4) === 58 && // :
  text.charCodeAt(at + 5) === 32; // space

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

/**
 * UTF-8 of complete sequences. `ignoreBOM` keeps a U+FEFF that starts a chunk: only the stream's first one is
 * dropped, by the caller. On Node 20.20 `decode` (not its streaming mode) is as fast as `Buffer#toString` for
 * 16 KiB chunks and 2.5x faster for 61-byte ones (no Buffer object per chunk).
 */
const textDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
const decodeUtf8 = (bytes: Uint8Array): string => textDecoder.decode(bytes);

/** The UTF-8 byte length of `text[from, to)`, for byte offsets and the size bound. */
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
