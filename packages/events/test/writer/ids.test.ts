import { afterEach, describe, expect, test, vi } from 'vitest';
import { randomHex, randomId } from '../../src/writer/ids.js';

const POOL_BYTES = 16384;
const hexOf = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

describe('randomId', () => {
  test('is the prefix and 32 lower-case hex digits', () => {
    expect(randomId('msg')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(randomId('resp')).toMatch(/^resp_[0-9a-f]{32}$/);
  });

  test('does not repeat, also across refills of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => randomId('x')); // 5000 x 16 bytes: about 5 refills
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit appears in every position over that many ids: no byte of the pool is stuck.
    for (let position = 2; position < 34; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});

describe('randomHex', () => {
  afterEach(() => vi.restoreAllMocks());

  test('is 2 lower-case hex digits a byte, for the fast sizes and any other', () => {
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(16)).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(1)).toMatch(/^[0-9a-f]{2}$/);
    expect(randomHex(37)).toMatch(/^[0-9a-f]{74}$/);
    const spanIds = Array.from({ length: 3000 }, () => randomHex(8));
    expect(new Set(spanIds).size).toBe(spanIds.length);
    for (let position = 0; position < 16; position++) expect(new Set(spanIds.map((id) => id[position])).size).toBe(16);
  });

  test('refuses sizes it cannot draw', () => {
    for (const bytes of [0, -1, 1.5, Number.NaN, POOL_BYTES + 1])
      expect(() => randomHex(bytes)).toThrow(new RangeError(`randomHex takes 1 to ${POOL_BYTES} bytes, not ${bytes}`));
  });

  test.each([8, 16, 3])('draws again past %i zero bytes, and reads the pool byte for byte', (bytes) => {
    randomHex(POOL_BYTES); // the pool is used up: the next draw refills it
    let filled: Uint8Array | undefined;
    const refill = (array: Uint8Array) => {
      array.fill(0, 0, bytes);
      array[bytes] = 0xa5; // the second draw must not be all zeros either by chance
      filled = array.slice();
      return array;
    };
    const real = crypto.getRandomValues.bind(crypto);
    vi.spyOn(crypto, 'getRandomValues').mockImplementationOnce(((array: Uint8Array) =>
      refill(real(array))) as typeof crypto.getRandomValues);
    const hex = randomHex(bytes);
    expect(filled).toBeDefined();
    expect(hex).toBe(hexOf(filled!.subarray(bytes, 2 * bytes)));
    expect(randomHex(bytes)).toBe(hexOf(filled!.subarray(2 * bytes, 3 * bytes)));
  });
});
