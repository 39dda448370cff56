// The bounded in-memory store: least-recently-used eviction at the bound, TTL expiry, item lookup that
// follows its response, and deletion.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InMemoryResponseStore, type StoredResponse } from '../src/index.js';

function entry(id: string): StoredResponse {
  return {
    response: {
      id,
      output: [{ type: 'message', id: `out_${id}`, role: 'assistant', status: 'completed', content: [] }],
    } as unknown as StoredResponse['response'],
    input: [
      { type: 'message', id: `in_${id}`, role: 'user', status: 'completed', content: [] },
    ] as unknown as StoredResponse['input'],
  };
}
const ids = async (store: InMemoryResponseStore, candidates: string[]) => {
  const present: string[] = [];
  for (const id of candidates) if (await store.get(id)) present.push(id);
  return present;
};

describe('InMemoryResponseStore', () => {
  test('keeps at most maxEntries, evicting the least recently used first', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) await store.put(entry(id));
    await store.get('a'); // a is now the most recently used
    await store.put(entry('d')); // evicts b
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    await store.put(entry('e')); // evicts c
    expect(await ids(store, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'd', 'e']);
  });

  test('an evicted response takes its items with it', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 1 });
    await store.put(entry('a'));
    expect(await store.getItem('in_a')).toMatchObject({ id: 'in_a' });
    expect(await store.getItem('out_a')).toMatchObject({ id: 'out_a' });
    await store.put(entry('b'));
    expect(await store.getItem('in_a')).toBeUndefined();
    expect(await store.getItem('out_b')).toMatchObject({ id: 'out_b' });
  });

  test('entries unused for ttlMs expire; use refreshes them', async () => {
    let now = 0;
    const store = new InMemoryResponseStore({ ttlMs: 100, now: () => now });
    await store.put(entry('a'));
    await store.put(entry('b'));
    now = 80;
    await store.get('a');
    now = 150; // b unused for 150 ms, a for 70 ms
    expect(await ids(store, ['a', 'b'])).toEqual(['a']);
    expect(await store.getItem('in_b')).toBeUndefined();
    expect(store.size).toBe(1);
  });

  test('put of an existing id replaces it; delete removes it and its items', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 2 });
    await store.put(entry('a'));
    await store.put(entry('a'));
    expect(store.size).toBe(1);
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    expect(await store.getItem('in_a')).toBeUndefined();
    // The replaced and deleted entries do not count against the bound.
    await store.put(entry('b'));
    await store.put(entry('c'));
    expect(await ids(store, ['a', 'b', 'c'])).toEqual(['b', 'c']);
  });

  test('below its bound, repeated use does not grow its bookkeeping without limit', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 100 });
    for (const id of ['a', 'b', 'c']) await store.put(entry(id));
    for (let i = 0; i < 20_000; i++) await store.get(['a', 'b', 'c'][i % 3]!);
    // The use-order queue is private; its length is the thing that would leak.
    expect((store as unknown as { order: string[] }).order.length).toBeLessThan(2000);
    await store.get('a');
    for (const id of ['d', 'e']) await store.put(entry(id));
    expect(await ids(store, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  test('stays at its bound through many puts and gets (the order queue does not leak)', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 50 });
    for (let i = 0; i < 5000; i++) {
      await store.put(entry(`r${i}`));
      if (i % 3 === 0) await store.get(`r${i - 10}`);
    }
    expect(store.size).toBe(50);
    expect((store as unknown as { order: string[] }).order.length).toBeLessThan(2000);
    expect(await store.get('r4999')).toBeDefined();
    expect(await store.get('r100')).toBeUndefined();
  });

  test('behaves like a plain least-recently-used list for any sequence of puts, gets and deletes', async () => {
    const op = fc.record({
      kind: fc.constantFrom('put' as const, 'get' as const, 'delete' as const),
      id: fc.integer({ min: 0, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1500, maxLength: 3000 }), async (ops) => {
        const store = new InMemoryResponseStore({ maxEntries: 5 });
        let model: string[] = []; // least recently used first
        for (const { kind, id } of ops) {
          const key = `r${id}`;
          const had = model.includes(key);
          if (kind === 'put') {
            await store.put(entry(key));
            model = [...model.filter((k) => k !== key), key];
            if (model.length > 5) model.shift();
          } else if (kind === 'get') {
            expect(Boolean(await store.get(key))).toBe(had);
            if (had) model = [...model.filter((k) => k !== key), key];
          } else {
            expect(await store.delete(key)).toBe(had);
            model = model.filter((k) => k !== key);
          }
        }
        expect(store.size).toBe(model.length);
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});
