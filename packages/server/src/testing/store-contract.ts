// The store contract as tests: any backend passes it to be a ResponseStore (memory and Redis do).
import type { TestFramework } from './framework.js';
import type { ResponseStore, StoredResponse } from '../stores/contract.js';

/** What `describeStoreContract` takes. */
export interface StoreContractOptions {
  /** A fresh, empty store with these settings; it is closed after each test. */
  create(settings: { ttlMs: number }): Promise<ResponseStore>;
  /** Real time the TTL test waits for (default 300 ms); raise it for a slow backend. */
  ttlMs?: number;
}

let counter = 0;
/** A stored response as the server would store it: an input message and an output message, each with an id. */
export function sampleEntry(options: { id?: string; previous?: string | null; status?: string; text?: string } = {}) {
  const id = options.id ?? `resp_contract_${++counter}_${Math.random().toString(36).slice(2)}`;
  return {
    response: {
      id,
      object: 'response',
      status: options.status ?? 'completed',
      previous_response_id: options.previous ?? null,
      metadata: {},
      output: [
        {
          type: 'message',
          id: `msg_out_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: options.text ?? `answer of ${id}`, annotations: [] }],
        },
      ],
    },
    input: [
      {
        type: 'message',
        id: `msg_in_${id}`,
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: `question of ${id} ✓ "quoted" \\ {}` }],
      },
    ],
  } as unknown as StoredResponse;
}

/** Registers the contract's tests for one backend, with your test framework's `describe`, `test` and `expect` (vitest, jest). */
export function describeStoreContract(
  name: string,
  options: StoreContractOptions,
  { describe, test, expect }: TestFramework,
): void {
  const ttlMs = options.ttlMs ?? 300;
  const withStore =
    (run: (store: ResponseStore) => Promise<void>, settings = { ttlMs: 60_000 }) =>
    async () => {
      const store = await options.create(settings);
      try {
        await run(store);
      } finally {
        await store.close?.();
      }
    };

  describe(`${name} store contract`, () => {
    test(
      'put stores a snapshot and every read answers a fresh copy',
      withStore(async (store) => {
        const entry = sampleEntry();
        const original = structuredClone(entry);
        expect(await store.put(entry, 'alice')).toBe(true);
        (entry.response.output[0] as { id: string }).id = 'changed after put';
        const first = await store.get(entry.response.id, 'alice');
        expect(first).toEqual(original);
        first!.input.length = 0;
        (first!.response as { status: string }).status = 'changed by a reader';
        expect(await store.get(entry.response.id, 'alice')).toEqual(original);
        expect(await store.getItem(`msg_in_${entry.response.id}`, 'alice')).toEqual(original.input[0]);
      }),
    );

    test(
      'put given the input as JSON in pieces (StoredResponseText.inputPieces) stores the same snapshot',
      withStore(async (store) => {
        // A long input, past V8's large-object size (the turn cuts such an input in pieces), cut anywhere: in
        // Latin-1 and past it (a store may keep the two apart).
        for (const words of ['é "q" \\ ÿ ', '✓ "q" \\ ']) {
          const entry = sampleEntry({ text: 'pieces' });
          (entry.input[0] as { content: Array<{ text: string }> }).content[0]!.text = words.repeat(20_000);
          const original = structuredClone(entry);
          const input = JSON.stringify(entry.input);
          const inputPieces = [input.slice(0, 7), input.slice(7, 140_000), input.slice(140_000)];
          const text = { response: JSON.stringify(entry.response), input, inputPieces };
          expect(await store.put(entry, 'alice', text)).toBe(true);
          expect(await store.get(original.response.id, 'alice')).toEqual(original);
          expect(await store.getItem(`msg_in_${original.response.id}`, 'alice')).toEqual(original.input[0]);
        }
      }),
    );

    test(
      'put given the entry as JSON (StoredResponseText) stores the same snapshot, read back as objects',
      withStore(async (store) => {
        // The turn serializes its response once and hands the text to the store beside the entry.
        const entry = sampleEntry({ text: 'answered once ✓ "quoted"' });
        const original = structuredClone(entry);
        const text = { response: JSON.stringify(entry.response), input: JSON.stringify(entry.input) };
        expect(await store.put(entry, 'alice', text)).toBe(true);
        (entry.response.output[0] as { id: string }).id = 'changed after put';
        entry.input.length = 0;
        expect(await store.get(original.response.id, 'alice')).toEqual(original);
        expect(await store.getChain(original.response.id, 'alice')).toEqual({ chain: [original] });
        expect(await store.getItem(`msg_out_${original.response.id}`, 'alice')).toEqual(original.response.output[0]);
        expect(await store.getItem(`msg_in_${original.response.id}`, 'alice')).toEqual(original.input[0]);
        // A replacement given its text replaces the response and its items, as a put without it does.
        const replaced = sampleEntry({ id: original.response.id, text: 'replaced' });
        (replaced.response.output[0] as { id: string }).id = `msg_new_${original.response.id}`;
        const replacedText = { response: JSON.stringify(replaced.response), input: JSON.stringify(replaced.input) };
        expect(await store.put(replaced, 'alice', replacedText)).toBe(true);
        expect(await store.get(original.response.id, 'alice')).toEqual(replaced);
        expect(await store.getItem(`msg_out_${original.response.id}`, 'alice')).toBeUndefined();
        // A cancelled response stays final whichever way the write comes.
        const cancelled = sampleEntry({ id: original.response.id, status: 'cancelled' });
        await store.put(cancelled, 'alice');
        expect(await store.put(replaced, 'alice', replacedText)).toBe(false);
        expect((await store.get(original.response.id, 'alice'))?.response.status).toBe('cancelled');
      }),
    );

    test(
      'another owner sees nothing: get, chain, items, update and delete',
      withStore(async (store) => {
        const first = sampleEntry();
        const second = sampleEntry({ previous: first.response.id });
        await store.put(first, 'alice');
        await store.put(second, 'alice');
        const id = second.response.id;
        expect(await store.get(id, 'mallory')).toBeUndefined();
        expect(await store.getChain(id, 'mallory')).toEqual({ chain: [], missing: id });
        expect(await store.getItem(`msg_out_${id}`, 'mallory')).toBeUndefined();
        expect(await store.getItem(`msg_in_${first.response.id}`, 'mallory')).toBeUndefined();
        expect(await store.update(id, 'mallory', (c) => c)).toBeUndefined();
        expect(await store.delete(id, 'mallory')).toBe(false);
        // A second owner writing the same id cannot take the response over: a store may refuse the write (false)
        // or keep it apart as the other owner's own (Redis keeps each owner's keys apart, one Cluster slot each).
        const intruder = sampleEntry({ id, text: 'mallory writes' });
        if (await store.put(intruder, 'mallory')) expect(await store.get(id, 'mallory')).toEqual(intruder);
        else expect(await store.get(id, 'mallory')).toBeUndefined();
        expect(await store.get(id, 'alice')).toEqual(second);
        expect(await store.getChain(id, 'alice')).toEqual({ chain: [first, second] });
        expect(await store.getItem(`msg_out_${id}`, 'alice')).toEqual(second.response.output[0]);
      }),
    );

    test(
      'item ids are scoped to their owner: the same client-given id stored by two owners resolves for each',
      withStore(async (store) => {
        // Input items keep the ids clients give them, so two tenants can name the same id.
        const shared = `msg_client_named_${Math.random().toString(36).slice(2)}`;
        const mine = sampleEntry({ text: 'alice says' });
        const theirs = sampleEntry({ text: 'mallory says' });
        (mine.input[0] as { id: string }).id = shared;
        (theirs.input[0] as { id: string }).id = shared;
        await store.put(mine, 'alice');
        await store.put(theirs, 'mallory');
        expect(await store.getItem(shared, 'alice')).toEqual(mine.input[0]);
        expect(await store.getItem(shared, 'mallory')).toEqual(theirs.input[0]);
        // Replacing or deleting one owner's response leaves the other's item where it was.
        const replaced = structuredClone(theirs);
        (replaced.input[0] as { id: string }).id = 'msg_renamed';
        expect(await store.put(replaced, 'mallory')).toBe(true);
        expect(await store.getItem(shared, 'alice')).toEqual(mine.input[0]);
        expect(await store.getItem(shared, 'mallory')).toBeUndefined();
        await store.put(theirs, 'mallory');
        expect(await store.delete(theirs.response.id, 'mallory')).toBe(true);
        expect(await store.getItem(shared, 'alice')).toEqual(mine.input[0]);
        expect(await store.getItem(shared, 'mallory')).toBeUndefined();
        expect((await store.get(mine.response.id, 'alice'))?.input).toEqual(mine.input);
      }),
    );

    test(
      'getChain loads a whole chain, oldest first, and names the first missing link',
      withStore(async (store) => {
        const chain: StoredResponse[] = [];
        for (let turn = 0; turn < 10; turn++) {
          const entry = sampleEntry({ previous: chain.at(-1)?.response.id ?? null, text: `turn ${turn}` });
          await store.put(entry, 'alice');
          chain.push(entry);
        }
        expect(await store.getChain(chain[9]!.response.id, 'alice')).toEqual({ chain });
        expect(await store.getChain(chain[0]!.response.id, 'alice')).toEqual({ chain: [chain[0]] });
        expect(await store.delete(chain[4]!.response.id, 'alice')).toBe(true);
        expect(await store.getChain(chain[9]!.response.id, 'alice')).toEqual({
          chain: chain.slice(5),
          missing: chain[4]!.response.id,
        });
        expect(await store.getChain('resp_never_stored', 'alice')).toEqual({ chain: [], missing: 'resp_never_stored' });
      }),
    );

    test(
      'items follow their response: found while it is stored, gone when it is replaced or deleted',
      withStore(async (store) => {
        const entry = sampleEntry();
        const id = entry.response.id;
        await store.put(entry, 'alice');
        expect(await store.getItem(`msg_out_${id}`, 'alice')).toEqual(entry.response.output[0]);
        const replaced = sampleEntry({ id, text: 'replaced' });
        (replaced.response.output[0] as { id: string }).id = `msg_new_${id}`;
        expect(await store.put(replaced, 'alice')).toBe(true);
        expect(await store.getItem(`msg_out_${id}`, 'alice')).toBeUndefined();
        expect(await store.getItem(`msg_new_${id}`, 'alice')).toEqual(replaced.response.output[0]);
        expect(await store.get(id, 'alice')).toEqual(replaced);
        expect(await store.delete(id, 'alice')).toBe(true);
        expect(await store.delete(id, 'alice')).toBe(false);
        expect(await store.get(id, 'alice')).toBeUndefined();
        expect(await store.getItem(`msg_new_${id}`, 'alice')).toBeUndefined();
        expect(await store.getItem(`msg_in_${id}`, 'alice')).toBeUndefined();
      }),
    );

    test(
      'a cancelled response is final: put does not replace it',
      withStore(async (store) => {
        const queued = sampleEntry({ status: 'queued' });
        const id = queued.response.id;
        await store.put(queued, 'alice');
        expect(await store.put(sampleEntry({ id, status: 'in_progress' }), 'alice')).toBe(true);
        const cancelled = await store.update(id, 'alice', (current) => {
          (current.response as { status: string }).status = 'cancelled';
          return current;
        });
        expect(cancelled?.response.status).toBe('cancelled');
        expect(await store.put(sampleEntry({ id, status: 'completed' }), 'alice')).toBe(false);
        expect((await store.get(id, 'alice'))?.response.status).toBe('cancelled');
      }),
    );

    test(
      'update is an atomic read-modify-write (concurrent updates all apply)',
      withStore(async (store) => {
        const entry = sampleEntry();
        const id = entry.response.id;
        await store.put(entry, 'alice');
        const increments = 20;
        await Promise.all(
          Array.from({ length: increments }, () =>
            store.update(id, 'alice', (current) => {
              const metadata = current.response.metadata as Record<string, string>;
              metadata.count = String(Number(metadata.count ?? 0) + 1);
              return current;
            }),
          ),
        );
        expect((await store.get(id, 'alice'))?.response.metadata).toEqual({ count: String(increments) });
        expect(await store.update(id, 'alice', () => undefined)).toEqual(await store.get(id, 'alice'));
        expect(await store.update('resp_never_stored', 'alice', (c) => c)).toBeUndefined();
      }),
    );

    test(
      'entries expire ttlMs after their last use; a read refreshes them',
      withStore(
        async (store) => {
          const used = sampleEntry();
          const unused = sampleEntry();
          await store.put(used, 'alice');
          await store.put(unused, 'alice');
          await sleep(ttlMs * 0.6);
          expect(await store.get(used.response.id, 'alice')).toBeDefined();
          await sleep(ttlMs * 0.6);
          expect(await store.get(unused.response.id, 'alice')).toBeUndefined();
          expect(await store.getItem(`msg_in_${unused.response.id}`, 'alice')).toBeUndefined();
          expect(await store.get(used.response.id, 'alice')).toBeDefined();
          await sleep(ttlMs * 1.3);
          expect(await store.get(used.response.id, 'alice')).toBeUndefined();
        },
        { ttlMs },
      ),
    );
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
