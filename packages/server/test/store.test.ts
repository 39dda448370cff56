// The in-memory store: the shared store contract, plus what is its own (least-recently-used eviction by
// count and by approximate bytes).
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { InMemoryResponseStore } from '../src/index.js';
import { describeStoreContract, sampleEntry } from '../src/testing/index.js';

describeStoreContract(
  'memory',
  { create: async ({ ttlMs }) => new InMemoryResponseStore({ ttlMs }) },
  { describe, test, expect },
);

const present = async (store: InMemoryResponseStore, candidates: string[]) => {
  const found: string[] = [];
  for (const id of candidates) if (await store.get(id, 'o')) found.push(id);
  return found;
};

describe('InMemoryResponseStore', () => {
  test('keeps at most maxEntries, evicting the least recently used first, with their items', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) await store.put(sampleEntry({ id }), 'o');
    await store.get('a', 'o'); // a is now the most recently used
    await store.put(sampleEntry({ id: 'd' }), 'o'); // evicts b
    expect(await store.getItem('msg_in_b', 'o')).toBeUndefined();
    await store.put(sampleEntry({ id: 'e' }), 'o'); // evicts c
    expect(await present(store, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'd', 'e']);
    expect(store.size).toBe(3);
  });

  test('stays under maxBytes, evicting the least recently used; an entry over the whole budget is not kept', async () => {
    const big = (id: string) => sampleEntry({ id, text: 'x'.repeat(10_000) });
    const store = new InMemoryResponseStore({ maxBytes: 35_000 });
    for (const id of ['a', 'b', 'c']) await store.put(big(id), 'o');
    expect(store.bytes).toBeLessThanOrEqual(35_000);
    await store.get('a', 'o');
    await store.put(big('d'), 'o');
    expect(await present(store, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
    expect(store.bytes).toBeGreaterThan(30_000);
    expect(store.bytes).toBeLessThanOrEqual(35_000);
    await expect(store.put(sampleEntry({ id: 'huge', text: 'x'.repeat(40_000) }), 'o')).rejects.toThrow(/too large/);
    expect(await store.get('huge', 'o')).toBeUndefined();
    expect(await present(store, ['a', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });

  test('counts what an entry costs: its UTF-8 bytes and its item index, not its JSON length', async () => {
    const store = new InMemoryResponseStore({ maxBytes: 1_000_000 });
    // 10,000 characters that are three bytes each in UTF-8.
    await store.put(sampleEntry({ id: 'wide', text: '✓'.repeat(10_000) }), 'o');
    expect(store.bytes).toBeGreaterThan(30_000);
    expect(store.bytes).toBeLessThan(35_000);
    // Many items with long client-given ids: the index that holds them counts too.
    const indexed = sampleEntry({ id: 'indexed' });
    indexed.input = Array.from({ length: 1_000 }, (_, i) => ({
      type: 'message',
      id: `msg_${i}_${'i'.repeat(200)}`,
      role: 'user',
      content: [{ type: 'input_text', text: 'hi' }],
    })) as typeof indexed.input;
    const before = store.bytes;
    await store.put(indexed, 'o');
    const json = JSON.stringify(indexed).length;
    expect(store.bytes - before).toBeGreaterThan(json + 1_000 * 2 * 200);
  });

  test('a short entry is kept as its JSON text and counted two bytes a character, whatever V8 keeps it as', async () => {
    const store = new InMemoryResponseStore({ maxBytes: 1_000_000 });
    const entry = sampleEntry({ id: 'short', text: 'plain ascii' });
    const text = { response: JSON.stringify(entry.response), input: JSON.stringify(entry.input) };
    expect(text.response.length + text.input.length).toBeLessThan(8 * 1024);
    await store.put(entry, 'o', text);
    const data = 2 * (text.response.length + text.input.length);
    // Beside its data: the bookkeeping and two indexed items, each counted (bounded above).
    expect(store.bytes).toBeGreaterThan(data);
    expect(store.bytes).toBeLessThan(data + 1_500);
    expect(await store.get('short', 'o')).toEqual(entry);
  });

  test('a long Latin-1 text past the heap share is kept and counted one byte a character, and read back whole', async () => {
    const store = new InMemoryResponseStore({ maxBytes: 1_000_000, maxHeapTextBytes: 0 });
    // Characters 0x80-0xff (two bytes each in UTF-8), escapes and ASCII.
    const text = `café "naïve" \\ ${'ÿ¡é'.repeat(10_000)} \u0001 end`;
    const entry = sampleEntry({ id: 'latin1', text });
    const json = { response: JSON.stringify(entry.response), input: JSON.stringify(entry.input) };
    await store.put(entry, 'o', json);
    // The input is short: a string, counted two bytes a character.
    const data = json.response.length + 2 * json.input.length;
    expect(store.bytes).toBeGreaterThan(data);
    expect(store.bytes).toBeLessThan(data + 1_500);
    expect(await store.get('latin1', 'o')).toEqual(entry);
  });
  test('a long Latin-1 input given in pieces is kept without joining them, read back whole; chunks of dropped entries serve later ones', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 2 });
    const long = (id: string, letter: string) => {
      const entry = sampleEntry({ id, text: 'plain' });
      // ~280 KiB of JSON: past V8's large-object size, characters 0x80-0xff and escapes among ASCII.
      entry.input = [0, 1].map((n) => ({
        type: 'message',
        id: `msg_in_${id}_${n}`,
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: `${letter}${n} é "q" \\ ÿ `.repeat(10_000) }],
      })) as typeof entry.input;
      const json = JSON.stringify(entry.input);
      // Cut anywhere: a short piece, one longer than a chunk, the rest.
      const inputPieces = [json.slice(0, 1_000), json.slice(1_000, 150_000), json.slice(150_000)];
      const text = {
        response: JSON.stringify(entry.response),
        inputPieces,
        get input(): string {
          throw new Error('the store made the one string of the pieces');
        },
      };
      return { entry, text };
    };
    const written = ['a', 'b', 'c', 'd', 'e'].map((id, index) => long(id, String.fromCharCode(65 + index)));
    for (const { entry, text } of written) {
      expect(await store.put(entry, 'o', text)).toBe(true);
      // Each put past the second evicts the oldest; its chunks take the next one's text.
      expect(await store.get(entry.response.id, 'o')).toEqual(entry);
    }
    expect(await present(store, ['a', 'b', 'c', 'd', 'e'])).toEqual(['d', 'e']);
    expect(await store.get('d', 'o')).toEqual(written[3]!.entry);
    expect(await store.getItem('msg_in_e_1', 'o')).toEqual(written[4]!.entry.input[1]);
    // One byte a character (and the last chunk's rest), not two.
    expect(store.bytes).toBeLessThan(2 * 1.1 * (written[3]!.text.inputPieces.join('').length + 2_000));
  });

  test('a long text past Latin-1 is kept as UTF-8 in chunks used again: read back whole, no fresh memory once the store turns over', async () => {
    const store = new InMemoryResponseStore({ maxEntries: 2 });
    const long = (id: string, turn: number) => {
      const entry = sampleEntry({ id, text: `answer ${turn} ✓ 😀 ${'é'.repeat(140_000)}` });
      // ~300 KiB of JSON: characters of one to four UTF-8 bytes (some across a chunk's end) and escapes.
      (entry.input[0] as { content: Array<{ text: string }> }).content[0]!.text = `${turn} é ✓ 😀 "q" \\ `.repeat(
        12_000,
      );
      const input = JSON.stringify(entry.input);
      // Cut anywhere but inside a surrogate pair, except once (the one way such a text is not chunked).
      const whole = (at: number) => (/[\ud800-\udbff]/.test(input[at - 1]!) ? at + 1 : at);
      const cut = turn === 4 ? input.indexOf('😀', 150_000) + 1 : whole(150_000);
      const inputPieces = [input.slice(0, whole(1_000)), input.slice(whole(1_000), cut), input.slice(cut)];
      return { entry, text: { response: JSON.stringify(entry.response), input, inputPieces } };
    };
    const allocate = vi.spyOn(Buffer, 'allocUnsafeSlow');
    const encode = vi.spyOn(TextEncoder.prototype, 'encode');
    try {
      for (let turn = 0; turn < 6; turn++) {
        const { entry, text } = long(`r${turn}`, turn);
        // From the fourth on: an entry is written before the one it evicts goes, whose chunks the next takes.
        if (turn === 3) {
          allocate.mockClear();
          encode.mockClear();
        }
        expect(await store.put(structuredClone(entry), 'o', text)).toBe(true);
        expect(await store.get(entry.response.id, 'o')).toEqual(entry);
        expect(await store.getItem(`msg_in_r${turn}`, 'o')).toEqual(entry.input[0]);
      }
      // No new chunk, and only the input cut inside a pair encoded whole.
      expect(allocate).not.toHaveBeenCalled();
      expect(encode.mock.calls.filter(([text]) => text !== undefined && text.length > 100_000)).toHaveLength(1);
    } finally {
      allocate.mockRestore();
      encode.mockRestore();
    }
    // Counted as the chunks it takes: about its UTF-8 bytes, not two bytes a character.
    const { text } = long('r9', 9);
    const bytes = Buffer.byteLength(text.response) + Buffer.byteLength(text.input);
    expect(store.bytes).toBeLessThan(2 * 1.1 * bytes);
  });

  test('behaves like a plain least-recently-used list for any sequence of puts, gets, item lookups and deletes', async () => {
    const op = fc.record({
      kind: fc.constantFrom('put' as const, 'get' as const, 'item' as const, 'delete' as const),
      id: fc.integer({ min: 0, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 500, maxLength: 1500 }), async (ops) => {
        const store = new InMemoryResponseStore({ maxEntries: 5 });
        let model: string[] = []; // least recently used first
        for (const { kind, id } of ops) {
          const key = `r${id}`;
          const had = model.includes(key);
          if (kind === 'put') {
            await store.put(sampleEntry({ id: key }), 'o');
            model = [...model.filter((k) => k !== key), key];
            if (model.length > 5) model.shift();
          } else if (kind === 'get') {
            expect(Boolean(await store.get(key, 'o'))).toBe(had);
            if (had) model = [...model.filter((k) => k !== key), key];
          } else if (kind === 'item') {
            // Items are indexed at the first lookup after their write; evicted and deleted ones are gone.
            expect((await store.getItem(`msg_in_${key}`, 'o'))?.id).toBe(had ? `msg_in_${key}` : undefined);
            if (had) model = [...model.filter((k) => k !== key), key];
          } else {
            expect(await store.delete(key, 'o')).toBe(had);
            model = model.filter((k) => k !== key);
          }
        }
        expect(store.size).toBe(model.length);
      }),
      { numRuns: 40, seed: 11 },
    );
  });
});
