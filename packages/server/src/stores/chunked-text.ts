// Long texts kept outside the heap in chunks that are used again (the in-memory store's long texts): Latin-1
// one byte a character, any other as UTF-8.

/** A Node `Buffer` as the store uses one: a chunk of Latin-1 or UTF-8 bytes. */
export type ChunkBuffer = Uint8Array & {
  toString(encoding: 'latin1' | 'utf8', start?: number, end?: number): string;
  write(text: string, offset: number, length: number, encoding: 'latin1'): number;
};
/** Node's `Buffer`, or undefined where the runtime has none. */
export const NodeBuffer = (
  globalThis as {
    Buffer?: { from(text: string, encoding: 'latin1'): ChunkBuffer; allocUnsafeSlow(size: number): ChunkBuffer };
  }
).Buffer;

/** The chunks' size: small beside the texts kept so (the last chunk's unused bytes are counted too). */
export const CHUNK_BYTES = 16 * 1024;
/**
 * What a chunk costs beside its bytes, counted with them: the `Buffer` and `ArrayBuffer` objects that hold it
 * (96 and 88 bytes of heap in a heap snapshot, and its slot in the text's list) and the allocator's records
 * of it outside the heap. Uncounted, a store full of chunked texts held 1.5% more than it counted.
 */
const CHUNK_OVERHEAD = 256;
/** The most chunks a pool keeps unused (4 MiB); past it, chunks given back are left to the collector. */
const SPARE_CHUNKS = 256;
/** The shortest text kept in chunks: V8's large-object size; a shorter string is made in pages used again. */
export const CHUNKED_CHARS = 128 * 1024;

/**
 * A long Latin-1 text given in pieces (`StoredResponseText.inputPieces`), kept one byte a character in chunks
 * outside the heap that a `ChunkPool` hands out and gets back when the entry goes. Any new large object, a
 * string in the heap or a buffer outside it, is fresh memory from the kernel each time one is made (on the
 * issue's VM a 1 MiB one cost ~257 page faults, ~8 ms), which a store that turns over would pay a write;
 * chunks used before are not fresh.
 */
export class ChunkedText {
  constructor(
    readonly chunks: readonly ChunkBuffer[],
    readonly length: number,
  ) {}

  /** What it is counted: its chunks and what each costs beside its bytes. */
  get bytes(): number {
    return this.chunks.length * (CHUNK_BYTES + CHUNK_OVERHEAD);
  }

  /** The whole text (a new string). */
  text(): string {
    const last = this.chunks.length - 1;
    return this.chunks
      .map((chunk, index) => chunk.toString('latin1', 0, index < last ? CHUNK_BYTES : this.length - last * CHUNK_BYTES))
      .join('');
  }
}

const encoder = new TextEncoder();
/** Fills a chunk's last bytes where the next character did not fit: a byte no UTF-8 text holds. */
const PADDING = 0xff;

/**
 * A text with characters past Latin-1, kept as UTF-8 in chunks like a Latin-1 one (`length` is its bytes
 * with their padding). No character is cut between two chunks: where the next one does not fit, the chunk's
 * last bytes (at most three) are PADDING, so each chunk is decoded on its own.
 */
export class Utf8ChunkedText extends ChunkedText {
  override text(): string {
    const last = this.chunks.length - 1;
    return this.chunks
      .map((chunk, index) => {
        let end = index < last ? CHUNK_BYTES : this.length - last * CHUNK_BYTES;
        while (index < last && chunk[end - 1] === PADDING) end--;
        return chunk.toString('utf8', 0, end);
      })
      .join('');
  }
}

/** Whether a piece ends inside a surrogate pair the next one finishes (the turn never cuts pieces there; a caller might). */
export const cutsPair = (pieces: readonly string[]) => {
  for (let index = 0; index < pieces.length - 1; index++) {
    const unit = pieces[index]!.charCodeAt(pieces[index]!.length - 1);
    if (unit >= 0xd800 && unit <= 0xdbff) return true;
  }
  return false;
};

/** Chunks for `ChunkedText`s: those given back first, then new ones. Needs `NodeBuffer`. */
export class ChunkPool {
  private readonly spare: ChunkBuffer[] = [];

  /** `pieces` (Latin-1 text, `length` characters in all) copied into chunks. */
  take(pieces: readonly string[], length: number): ChunkedText {
    const chunks: ChunkBuffer[] = [];
    let chunk: ChunkBuffer | undefined;
    let at = CHUNK_BYTES;
    for (const piece of pieces)
      for (let from = 0; from < piece.length; ) {
        if (at === CHUNK_BYTES) {
          chunk = this.next(chunks);
          at = 0;
        }
        const count = Math.min(CHUNK_BYTES - at, piece.length - from);
        chunk!.write(count === piece.length ? piece : piece.slice(from, from + count), at, count, 'latin1');
        at += count;
        from += count;
      }
    return new ChunkedText(chunks, length);
  }

  /**
   * `pieces` (text past Latin-1; no surrogate pair cut between two pieces, which would be encoded as two
   * replacement characters) encoded as UTF-8 into chunks, without joining them.
   */
  takeUtf8(pieces: readonly string[]): Utf8ChunkedText {
    const chunks: ChunkBuffer[] = [];
    let chunk: ChunkBuffer | undefined;
    let at = CHUNK_BYTES;
    for (const piece of pieces)
      for (let from = 0; from < piece.length; ) {
        if (at === CHUNK_BYTES) {
          chunk = this.next(chunks);
          at = 0;
        }
        // A slice of a flat string is a view of it, not a copy; the encoder writes only what fits.
        const { read, written } = encoder.encodeInto(
          from === 0 ? piece : piece.slice(from),
          at === 0 ? chunk! : chunk!.subarray(at),
        );
        from += read;
        at += written;
        if (from < piece.length && at < CHUNK_BYTES) {
          chunk!.fill(PADDING, at);
          at = CHUNK_BYTES;
        }
      }
    return new Utf8ChunkedText(chunks, (chunks.length - 1) * CHUNK_BYTES + at);
  }

  /** A chunk given back, else a new one, added to `chunks`. */
  private next(chunks: ChunkBuffer[]): ChunkBuffer {
    const chunk = this.spare.pop() ?? NodeBuffer!.allocUnsafeSlow(CHUNK_BYTES);
    chunks.push(chunk);
    return chunk;
  }

  /** Takes back the chunks of a text no longer kept, to hand out again. */
  giveBack(text: ChunkedText): void {
    for (const chunk of text.chunks) if (this.spare.length < SPARE_CHUNKS) this.spare.push(chunk);
  }
}
