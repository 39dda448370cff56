// The character codes of each byte's two lower-case hex digits.
const HIGH = new Uint16Array(256);
const LOW = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  const hex = byte.toString(16).padStart(2, '0');
  HIGH[byte] = hex.charCodeAt(0);
  LOW[byte] = hex.charCodeAt(1);
}
// One `crypto.getRandomValues` call fills it (16 KiB: 1,024 ids of 16 bytes a call; 4 KiB cost ~10% more an id).
const pool = new Uint8Array(16384);
let next = pool.length;

/** The pool offset of `bytes` fresh random bytes. */
function take(bytes: number): number {
  if (next + bytes > pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  const at = next;
  next += bytes;
  return at;
}

/**
 * `bytes` random bytes (1 to 16,384) as lower-case hex, never all zeros (W3C trace context refuses an all-zero
 * trace or span id; for 8 bytes and more that is a 2^-64 redraw). The bytes come from one pooled
 * `crypto.getRandomValues` buffer shared by every caller (response, item and request ids), refilled in place. 8 and 16 bytes make their string in one `String.fromCharCode` call: a flat string, where adding
 * the digits pair by pair built a rope of 17 strings that `JSON.stringify` then flattened (an id with its
 * serialization 661 -> 526 ns).
 */
export function randomHex(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > pool.length)
    throw new RangeError(`randomHex takes 1 to ${pool.length} bytes, not ${bytes}`);
  if (bytes === 16 || bytes === 8) return unrolledHex(bytes);
  for (;;) {
    const at = take(bytes);
    let hex = '';
    let any = 0;
    for (let i = at; i < at + bytes; i++) {
      const byte = pool[i]!;
      any |= byte;
      hex += String.fromCharCode(HIGH[byte]!, LOW[byte]!);
    }
    if (any !== 0) return hex;
  }
}

/** 8 or 16 bytes, each read into a local and written in one call: no loop, no intermediate string. */
function unrolledHex(bytes: 8 | 16): string {
  const p = pool;
  const n = take(bytes);
  const a = p[n]!;
  const b = p[n + 1]!;
  const c = p[n + 2]!;
  const d = p[n + 3]!;
  const e = p[n + 4]!;
  const f = p[n + 5]!;
  const g = p[n + 6]!;
  const h = p[n + 7]!;
  const first = a | b | c | d | e | f | g | h;
  if (bytes === 8) {
    if (first === 0) return unrolledHex(8);
    // biome-ignore format: one pair of digits a byte
    return String.fromCharCode(
      HIGH[a]!, LOW[a]!, HIGH[b]!, LOW[b]!, HIGH[c]!, LOW[c]!, HIGH[d]!, LOW[d]!,
      HIGH[e]!, LOW[e]!, HIGH[f]!, LOW[f]!, HIGH[g]!, LOW[g]!, HIGH[h]!, LOW[h]!,
    );
  }
  const i = p[n + 8]!;
  const j = p[n + 9]!;
  const k = p[n + 10]!;
  const l = p[n + 11]!;
  const m = p[n + 12]!;
  const o = p[n + 13]!;
  const q = p[n + 14]!;
  const r = p[n + 15]!;
  if ((first | i | j | k | l | m | o | q | r) === 0) return unrolledHex(16);
  // biome-ignore format: one pair of digits a byte
  return String.fromCharCode(
    HIGH[a]!, LOW[a]!, HIGH[b]!, LOW[b]!, HIGH[c]!, LOW[c]!, HIGH[d]!, LOW[d]!,
    HIGH[e]!, LOW[e]!, HIGH[f]!, LOW[f]!, HIGH[g]!, LOW[g]!, HIGH[h]!, LOW[h]!,
    HIGH[i]!, LOW[i]!, HIGH[j]!, LOW[j]!, HIGH[k]!, LOW[k]!, HIGH[l]!, LOW[l]!,
    HIGH[m]!, LOW[m]!, HIGH[o]!, LOW[o]!, HIGH[q]!, LOW[q]!, HIGH[r]!, LOW[r]!,
  );
}

/** A fresh id such as `msg_` + 32 hex digits (128 random bits, `randomHex(16)`). */
export function randomId(prefix: string): string {
  return `${prefix}_${unrolledHex(16)}`;
}
