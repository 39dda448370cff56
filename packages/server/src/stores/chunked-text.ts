// Long Latin-1 texts kept outside the heap in chunks that are used again (the in-memory store's long inputs).

/** A Node `Buffer` as the store uses one (undefined where the runtime has none). */
export type Latin1Buffer = Uint8Array & {
  toString(encoding: 'latin1', start?: number, end?: number): string;
  write(text: string, offset: number, length: number, encoding: 'latin1'): number;
};
/** Node's `Buffer`, or undefined where the runtime has none. */
export const NodeBuffer = (
  globalThis as {
    Buffer?: { from(text: string, encoding: 'latin1'): Latin1Buffer; allocUnsafeSlow(size: number): Latin1Buffer };
  }
).Buffer;

/** The chunks' size: small beside the texts kept so (the last chunk's unused bytes are counted too). */
export const CHUNK_BYTES = 16 * 1024;
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
    readonly chunks: readonly Latin1Buffer[],
    readonly length: number,
  ) {}

  /** The whole text (a new string). */
  text(): string {
    const last = this.chunks.length - 1;
    return this.chunks
      .map((chunk, index) => chunk.toString('latin1', 0, index < last ? CHUNK_BYTES : this.length - last * CHUNK_BYTES))
      .join('');
  }
}

/** Chunks for `ChunkedText`s: those given back first, then new ones. Needs `NodeBuffer`. */
export class ChunkPool {
  private readonly spare: Latin1Buffer[] = [];

  /** `pieces` (Latin-1 text, `length` characters in all) copied into chunks. */
  take(pieces: readonly string[], length: number): ChunkedText {
    const chunks: Latin1Buffer[] = [];
    let chunk: Latin1Buffer | undefined;
    let at = CHUNK_BYTES;
    for (const piece of pieces)
      for (let from = 0; from < piece.length; ) {
        if (at === CHUNK_BYTES) {
          chunk = this.spare.pop() ?? NodeBuffer!.allocUnsafeSlow(CHUNK_BYTES);
          chunks.push(chunk);
          at = 0;
        }
        const count = Math.min(CHUNK_BYTES - at, piece.length - from);
        chunk!.write(count === piece.length ? piece : piece.slice(from, from + count), at, count, 'latin1');
        at += count;
        from += count;
      }
    return new ChunkedText(chunks, length);
  }

  /** Takes back the chunks of a text no longer kept, to hand out again. */
  giveBack(text: ChunkedText): void {
    for (const chunk of text.chunks) if (this.spare.length < SPARE_CHUNKS) this.spare.push(chunk);
  }
}
