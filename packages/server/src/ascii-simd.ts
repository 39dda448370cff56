// Long ASCII text read sixteen bytes at a time by small WebAssembly SIMD functions (the word count in
// models/item-text.ts, the JSON escape check in json-text.ts): each module made from its bytes, and a chunk of
// text copied into its memory by `encodeInto`, natively, one byte a character exactly when the chunk is ASCII.

/** Below this many characters the per-call cost of `encodeInto` is more than it saves. */
export const ASCII_FROM = 64;
/** Characters copied at a time (a multiple of 16, within a module's one page of memory). */
export const ASCII_CHUNK = 32 * 1024;
const encoder = new TextEncoder();

/** A module's exports and the first ASCII_CHUNK bytes of its memory. */
export interface SimdModule<Exports> {
  exports: Exports;
  bytes: Uint8Array;
}

/**
 * The module of `base64` (WebAssembly 2.0 with SIMD, which every Node since 16 runs), or undefined where the
 * runtime has no WebAssembly or does not compile it from bytes (some edge runtimes): its caller then does the
 * same work in JavaScript.
 */
export function simdModule<Exports>(base64: string): SimdModule<Exports> | undefined {
  try {
    const module = new WebAssembly.Module(Uint8Array.from(atob(base64), (char) => char.charCodeAt(0)));
    const exports = new WebAssembly.Instance(module).exports as Exports & { memory: WebAssembly.Memory };
    return { exports, bytes: new Uint8Array(exports.memory.buffer, 0, ASCII_CHUNK) };
  } catch {
    return undefined;
  }
}

/**
 * Copies `chunk` (at most ASCII_CHUNK characters) into `bytes`, spaces after it up to a multiple of 16 (the
 * functions read whole sixteens); answers that length, or -1 when the chunk is not ASCII.
 */
export function asciiInto(chunk: string, bytes: Uint8Array): number {
  const { read, written } = encoder.encodeInto(chunk, bytes);
  if (read !== chunk.length || written !== read) return -1;
  const padded = (written + 15) & ~15;
  bytes.fill(0x20, written, padded);
  return padded;
}
