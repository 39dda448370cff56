const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
const pool = new Uint8Array(4096);
let next = pool.length;

/**
 * A fresh id such as `msg_` + 32 hex digits (128 random bits). Random bytes come from a pooled
 * `crypto.getRandomValues` buffer: `crypto.randomUUID().replace(/-/g, '')` cost three times as much
 * and allocated about 1 KB per id, several times per response.
 */
export function randomId(prefix: string): string {
  if (next + 16 > pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  let id = `${prefix}_`;
  for (const end = next + 16; next < end; next++) id += HEX[pool[next]!];
  return id;
}
