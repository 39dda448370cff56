import { describe, expect, test } from 'vitest';
import { randomId } from '../../src/writer/ids.js';

describe('randomId', () => {
  test('is the prefix and 32 lower-case hex digits', () => {
    expect(randomId('msg')).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(randomId('resp')).toMatch(/^resp_[0-9a-f]{32}$/);
  });

  test('does not repeat, also across refills of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => randomId('x')); // 5000 x 16 bytes: about 20 refills
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit appears in every position over that many ids: no byte of the pool is stuck.
    for (let position = 2; position < 34; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(16);
  });
});
