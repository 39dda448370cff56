// What UpstreamCall does with a body's bytes: joins them into text, and lets go of the rest of an answer.
import type { Cancellation } from '../cancellation.js';
import type { SSEFrame, SSEFrameDecoder } from '@openresponses/events';
import type { UpstreamBodyReader, UpstreamResponse } from './upstream.js';

/** A whole body's text read within a byte bound: `over` (nothing kept, the answer dropped) past it. */
export interface BoundedText {
  text: string;
  over: boolean;
}

/**
 * Marks a fetch's answer that reads its whole body more cheaply than through `body.getReader()` (`nodeFetch`:
 * one promise and the message's own events, not a promise and a microtask per read). Called at most once,
 * instead of reading `body`; `onChunk` runs for each chunk kept. It rejects as a body reader's `read()` would
 * (the connection broke, or the call was aborted).
 */
export const READ_WHOLE: unique symbol = Symbol('openresponses.readWhole');
export interface WholeBodyReading {
  [READ_WHOLE](maxBytes: number, onChunk: () => void): Promise<BoundedText>;
}

export async function cancelReader(reader: UpstreamBodyReader): Promise<void> {
  await reader.cancel?.().catch(() => {});
}

/** Bytes the rest of a complete answer may have before its connection is dropped rather than kept for reuse. */
const MAX_TRAILING_BYTES = 64 * 1024;
const TRAILING_MS = 1_000;

/**
 * The rest of an answer already complete (usually nothing but the body's end) is read in the background, so
 * a keep-alive connection can be reused; more than a little, or longer than a second, and it is dropped.
 */
export function letGo(reader: UpstreamBodyReader, abort: Cancellation): void {
  // A reader without cancel(): the call's abort drops the connection (every fetch follows it).
  const drop = () => (reader.cancel ? cancelReader(reader) : Promise.resolve(abort.cancel()));
  const timer = setTimeout(() => void drop(), TRAILING_MS);
  void (async () => {
    let bytes = 0;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        bytes += next.value.byteLength;
        if (bytes > MAX_TRAILING_BYTES) {
          await drop();
          break;
        }
      }
    } catch {
      // Dropped: nothing more to read.
    } finally {
      clearTimeout(timer);
      reader.releaseLock();
    }
  })();
}

type NodeBufferClass = {
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'utf8'): string };
};
const NodeBuffer = (globalThis as { Buffer?: NodeBufferClass }).Buffer;
const textDecoder = new TextDecoder();
/** UTF-8 text of whole bytes: with Buffer where the runtime has one (Node 20's TextDecoder is several times slower). */
const decode: (bytes: Uint8Array) => string = NodeBuffer
  ? (bytes) => NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  : (bytes) => textDecoder.decode(bytes);

export function joinText(chunks: Uint8Array[]): string {
  if (chunks.length === 0) return '';
  if (chunks.length === 1) return decode(chunks[0]!);
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return decode(all);
}

/**
 * A body up to `max` bytes; past it reading stops (`over`), and what fit is kept only when `keepStart` (an
 * error body shows its start). `onChunk` runs for each chunk kept; a failed read throws `failure(error)`.
 */
export async function readBounded(
  response: UpstreamResponse,
  max: number,
  keepStart: boolean,
  onChunk: () => void,
  failure: (error: unknown) => Error,
): Promise<BoundedText> {
  const reader = response.body?.getReader();
  if (!reader) return { text: '', over: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        throw failure(error);
      }
      if (next.done) break;
      bytes += next.value.byteLength;
      if (bytes > max) {
        await cancelReader(reader);
        if (!keepStart) {
          chunks.length = 0;
          return { text: '', over: true };
        }
        const fits = next.value.byteLength - (bytes - max);
        if (fits > 0) chunks.push(next.value.subarray(0, fits));
        return { text: joinText(chunks), over: true };
      }
      chunks.push(next.value);
      onChunk();
    }
  } finally {
    reader.releaseLock();
  }
  return { text: joinText(chunks), over: false };
}

/** An SSE body being read by `UpstreamCall.nextFrames`: its reader, its frame decoder and its bytes so far. */
export class FrameReading {
  /** Bytes read so far (bounded by `maxUpstreamStreamBytes`). */
  total = 0;
  /** Frames were handed out: the next read first asks whether the answer is complete. */
  handedOut = false;
  /** The reader is no longer ours: released, or handed to `letGo`. */
  released = false;

  constructor(
    readonly reader: UpstreamBodyReader,
    readonly decoder: SSEFrameDecoder,
    readonly complete: () => boolean,
    readonly keepAlive: ((frame: SSEFrame) => boolean) | undefined,
  ) {}

  /** Releases the reader's lock, unless it is no longer ours; answers undefined (the reading's end). */
  release(): undefined {
    if (this.released) return undefined;
    this.released = true;
    this.reader.releaseLock();
    return undefined;
  }

  /** The answer is whole: the rest of the body is let go (`letGo`); answers undefined (the reading's end). */
  letGo(abort: Cancellation): undefined {
    this.released = true;
    letGo(this.reader, abort);
    return undefined;
  }
}
