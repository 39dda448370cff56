// The memory store's use order (stores/use-order.ts) against a plain model of least-recently-used eviction by
// count and bytes with expiry: the same entries held, in the same order, the same ones dropped, and the same
// byte count, for any sequence of writes, reads, deletes and clock steps.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { UseOrder, type UseOrderEntry } from '../src/stores/use-order.js';

interface Held extends UseOrderEntry {
  id: string;
  size: number;
}

const held = (id: string, size: number): Held => ({ id, size, used: 0, older: undefined, newer: undefined });

/** The model: an array, least recently used first; each entry with the time it was last used. */
class Model {
  list: Array<{ id: string; size: number; used: number }> = [];
  dropped: string[] = [];
  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
    readonly ttlMs: number,
  ) {}
  bytes = () => this.list.reduce((sum, e) => sum + e.size, 0);
  private drop(id: string) {
    this.list = this.list.filter((e) => e.id !== id);
    this.dropped.push(id);
  }
  get(id: string, now: number, refresh: boolean) {
    const entry = this.list.find((e) => e.id === id);
    if (!entry) return undefined;
    if (this.ttlMs !== 0 && now - entry.used > this.ttlMs) {
      this.drop(id);
      return undefined;
    }
    if (refresh && this.ttlMs !== 0) entry.used = now;
    this.list = [...this.list.filter((e) => e !== entry), entry];
    return entry.id;
  }
  set(id: string, size: number, now: number) {
    if (this.list.some((e) => e.id === id)) this.drop(id);
    else if (this.maxEntries !== 0 && this.list.length >= this.maxEntries) this.drop(this.list[0]!.id);
    while (this.list.length > 0 && this.bytes() + size > this.maxBytes) this.drop(this.list[0]!.id);
    this.list.push({ id, size, used: now });
  }
  delete(id: string) {
    if (!this.list.some((e) => e.id === id)) return false;
    this.drop(id);
    return true;
  }
}

/** The use order's entries, least recently used first, read by following its links from the newest end. */
function order(cache: UseOrder<Held>, ids: string[]): string[] {
  const present = ids.map((id) => ({ id, entry: (cache as unknown as { byKey: Map<string, Held> }).byKey.get(id) }));
  let newest = present.find((p) => p.entry && p.entry.newer === undefined)?.entry as UseOrderEntry | undefined;
  const out: string[] = [];
  for (; newest; newest = newest.older) out.unshift((newest as Held).id);
  return out;
}

describe('UseOrder', () => {
  test('holds, orders, evicts and expires exactly as a plain least-recently-used list with byte and count bounds', () => {
    const ids = Array.from({ length: 10 }, (_, i) => `r${i}`);
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('set' as const),
        id: fc.constantFrom(...ids),
        size: fc.integer({ min: 1, max: 40 }),
      }),
      fc.record({ kind: fc.constant('get' as const), id: fc.constantFrom(...ids), refresh: fc.boolean() }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.constantFrom(...ids) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 30 }) }),
    );
    const bounds = fc.record({
      maxEntries: fc.constantFrom(0, 1, 3, 6),
      maxBytes: fc.constantFrom(40, 100, 1000),
      ttlMs: fc.constantFrom(0, 25, 60),
    });
    fc.assert(
      fc.property(bounds, fc.array(op, { minLength: 50, maxLength: 400 }), ({ maxEntries, maxBytes, ttlMs }, ops) => {
        let clock = 1000;
        const dropped: string[] = [];
        const cache = new UseOrder<Held>({
          maxEntries,
          maxBytes,
          ttlMs,
          now: () => clock,
          dropped: (entry) => dropped.push(entry.id),
        });
        const model = new Model(maxEntries, maxBytes, ttlMs);
        for (const step of ops) {
          if (step.kind === 'set') {
            cache.set(held(step.id, step.size));
            model.set(step.id, step.size, clock);
          } else if (step.kind === 'get') {
            expect(cache.get(step.id, step.refresh)?.id).toBe(model.get(step.id, clock, step.refresh));
          } else if (step.kind === 'delete') {
            expect(cache.delete(step.id)).toBe(model.delete(step.id));
          } else clock += step.ms;
          expect(dropped).toEqual(model.dropped);
          expect(cache.size).toBe(model.list.length);
          expect(cache.bytes).toBe(model.bytes());
          expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
          expect(order(cache, ids)).toEqual(model.list.map((e) => e.id));
        }
      }),
      { numRuns: 120, seed: 35 },
    );
  });

  test('an entry read after its time to live is gone (and dropped once); one read in time lives on', () => {
    let clock = 0;
    const dropped: string[] = [];
    const cache = new UseOrder<Held>({
      maxEntries: 10,
      maxBytes: 100,
      ttlMs: 50,
      now: () => clock,
      dropped: (entry) => dropped.push(entry.id),
    });
    cache.set(held('a', 1));
    cache.set(held('b', 1));
    clock = 50;
    expect(cache.get('a')?.id).toBe('a'); // exactly ttlMs: still held, and refreshed
    clock = 51;
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('b')).toBeUndefined();
    expect(dropped).toEqual(['b']);
    clock = 100;
    expect(cache.get('a', false)?.id).toBe('a');
    clock = 101;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
  });

  test('refuses bounds that are not non-negative integers', () => {
    const base = { maxEntries: 1, maxBytes: 1, ttlMs: 0, now: () => 0, dropped: () => {} };
    expect(() => new UseOrder({ ...base, maxEntries: -1 })).toThrow(/maxEntries must be a non-negative integer/);
    expect(() => new UseOrder({ ...base, maxBytes: 1.5 })).toThrow(/maxBytes/);
    expect(() => new UseOrder({ ...base, ttlMs: Number.NaN })).toThrow(/ttlMs/);
  });
});
