import type { ItemField } from '@openresponses/types';
import {
  forEachItem,
  StoreEntryTooLargeError,
  type ResponseStore,
  type StoredChain,
  type StoredResponse,
  type StoredResponseText,
} from './contract.js';
import { PAST_LATIN1 } from '../json-text.js';
import { clock } from '../telemetry/clock.js';
import { CHUNKED_CHARS, ChunkedText, ChunkPool, cutsPair, type ChunkBuffer, NodeBuffer } from './chunked-text.js';
import { UseOrder, type UseOrderEntry } from './use-order.js';

/** What `new InMemoryResponseStore(options)` takes. */
export interface InMemoryStoreOptions {
  /** Most responses kept; the least recently used goes first (default 10,000). */
  maxEntries?: number;
  /**
   * Bytes kept: each response's JSON with its input (one byte a character when every character is
   * Latin-1, else as UTF-8; two bytes a character when short), plus its item index and bookkeeping; the
   * least recently used go first to stay under it (default 256 MiB). A single response larger than this is
   * not stored.
   */
  maxBytes?: number;
  /**
   * Of `maxBytes`, the most that long Latin-1 texts kept as strings may take inside the JavaScript heap
   * (default 64 MiB); past it they are kept as UTF-8 bytes outside the heap, like any other text. The
   * heap has a limit of its own (Node's is set from the memory of the machine or container, at most
   * 4 GiB), which a process reaches fatally: the Node entry points (`storeFromUrl`, the CLI, `startServer`) raise this to a
   * quarter of that limit. A long input the turn gives in pieces (`StoredResponseText.inputPieces`) is
   * kept outside the heap in chunks used again, and takes nothing of this.
   */
  maxHeapTextBytes?: number;
  /** How long a response is kept after it was last written or read, in ms (default one hour). */
  ttlMs?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/**
 * Bytes counted beyond an entry's data: the entry object, its strings and the cache's slots, and per
 * indexed item its index slot. Measured: a response with two items costs about 750 bytes beside its data
 * and is counted about 1,050 (an upper bound, so many small responses cannot exceed the budget).
 */
const ENTRY_OVERHEAD = 512;
const ITEM_OVERHEAD = 128;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The longest JSON text kept as a string whatever its characters; it is counted two bytes a character (the
 * most V8 spends on it, whatever its form), and keeping it as it is spares a TextEncoder pass and an off-heap
 * allocation per write and a decoding per read: for a 1.3 KB entry, about 2 µs of a 4 µs serialization.
 */
const LONGEST_STRING = 8 * 1024;

/**
 * A long Latin-1 text past the heap's share, kept outside the heap one byte a character: copying a
 * one-byte string's characters out is a `memcpy`, where the UTF-8 encoder transcodes them (1 MiB of
 * ASCII: 0.16 ms against 0.65 ms, load 8.6), and reading it back is the same copy the other way. Where
 * the runtime has no `Buffer`, such a text is kept as UTF-8.
 */
class Latin1Bytes {
  constructor(readonly bytes: ChunkBuffer) {}
}

/**
 * JSON text as the store keeps it: a string, Latin-1 chunks or bytes, or (with a character past Latin-1,
 * `PAST_LATIN1`) UTF-8. A longer text without such a character is kept as the string it is (while the strings
 * kept so stay under `maxHeapTextBytes`), counted one byte a character: V8 keeps such a string one byte a
 * character (`JSON.stringify` makes one whenever the strings it serializes are, and `JSON.parse` and the
 * UTF-8 decoders make those whenever they can), and an expression that can match no Latin-1 character fails
 * such a string at once, without reading it. The test also makes `JSON.stringify`'s rope of pieces one
 * string, which is what is kept: a rope's pieces would be copied by the young generation's collections and
 * spread over pages that eviction fragments. A text with such a character is kept as UTF-8 outside the heap
 * (as a string, mostly-ASCII text would cost two bytes a character): a long one in chunks used again (see
 * `keepUtf8`), a shorter one as its bytes, exactly as large as counted. Storing a 1 MiB ASCII input costs
 * one copy instead of the encoder's three passes (put: 1.9 ms -> 0.7 ms). Not seen here: a Latin-1 text
 * that V8 keeps two bytes a character (a slice of a wider one that left its wide characters out) costs twice
 * what it is counted; the turn's JSON is made of parsed strings, which never are.
 */
type Kept = string | ChunkedText | Latin1Bytes | Uint8Array;

/** What a kept text takes of the heap's share (`maxHeapTextBytes`): a long string's length. */
const heapShare = (kept: Kept) => (typeof kept === 'string' && kept.length > LONGEST_STRING ? kept.length : 0);
const keptBytes = (kept: Kept) =>
  typeof kept === 'string'
    ? kept.length <= LONGEST_STRING
      ? 2 * kept.length
      : kept.length
    : kept instanceof ChunkedText
      ? kept.bytes
      : kept instanceof Latin1Bytes
        ? kept.bytes.length
        : kept.byteLength;
const textOf = (kept: Kept) =>
  typeof kept === 'string'
    ? kept
    : kept instanceof ChunkedText
      ? kept.text()
      : kept instanceof Latin1Bytes
        ? kept.bytes.toString('latin1')
        : decoder.decode(kept);

interface Entry extends UseOrderEntry {
  id: string;
  owner: string;
  /** The snapshot's response and input as JSON (see `LONGEST_STRING`): reads parse a fresh copy. */
  response: Kept;
  input: Kept;
  previous: string | null;
  status: string;
  itemIds: string[];
  /** What the entry costs, counted once when it is written. */
  size: number;
  /** Of `size`, the long texts kept as strings (see `maxHeapTextBytes`). */
  heapTextBytes: number;
}

const parse = (entry: Entry): StoredResponse => ({
  response: JSON.parse(textOf(entry.response)),
  input: JSON.parse(textOf(entry.input)),
});

/**
 * The default store, in this process's memory: bounded by entry count and by approximate bytes (least
 * recently used evicted first), with entries unused for `ttlMs` expiring (see `UseOrder`).
 */
export class InMemoryResponseStore implements ResponseStore {
  private readonly entries: UseOrder<Entry>;
  /**
   * Owner -> item id -> the response that holds it (for `item_reference`). Scoped by owner: input items
   * keep the ids clients give them, so two tenants can store the same id.
   */
  private readonly items = new Map<string, Map<string, string>>();
  /**
   * Entries whose items are not in `items` yet, in the order they were written; `getItem` indexes them
   * first, and one that goes before that leaves nothing to undo. Indexing when written cost a Map write per
   * item and a read and a delete per item at eviction, for lookups few turns make: a store at its bound
   * spent 0.9 ms a write (load 7) on a 1 MiB input's 950 items, 0.1 ms without.
   */
  private readonly unindexed = new Set<Entry>();
  private readonly maxBytes: number;
  private readonly maxHeapTextBytes: number;
  /** Bytes of long texts kept as strings now (see `maxHeapTextBytes`). */
  private heapTextBytes = 0;
  /** Where long inputs given in pieces are kept. */
  private readonly chunks = new ChunkPool();

  constructor(options: InMemoryStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.maxHeapTextBytes = options.maxHeapTextBytes ?? 64 * 1024 * 1024;
    this.entries = new UseOrder<Entry>({
      maxEntries: options.maxEntries ?? 10_000,
      maxBytes: this.maxBytes,
      ttlMs: options.ttlMs ?? 60 * 60 * 1000,
      now: options.now ?? (() => clock.now()),
      dropped: (entry) => {
        this.heapTextBytes -= entry.heapTextBytes;
        this.giveBack(entry.response);
        this.giveBack(entry.input);
        if (this.unindexed.delete(entry)) return;
        const owned = this.items.get(entry.owner);
        if (!owned) return;
        for (const itemId of entry.itemIds) if (owned.get(itemId) === entry.id) owned.delete(itemId);
        if (owned.size === 0) this.items.delete(entry.owner);
      },
    });
  }

  /** Responses held now (expired ones may count until they are next touched). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held now, as counted against `maxBytes`. */
  get bytes(): number {
    return this.entries.bytes;
  }

  /** The stored response `id` of `owner`, or undefined. */
  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    const entry = this.read(id, owner);
    return entry && parse(entry);
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const chain: StoredResponse[] = [];
    const seen = new Set<string>();
    for (let next: string | null = id; next !== null; ) {
      const entry: Entry | undefined = seen.has(next) ? undefined : this.read(next, owner);
      if (!entry) return { chain: chain.reverse(), missing: next };
      seen.add(next);
      chain.push(parse(entry));
      next = entry.previous;
    }
    return { chain: chain.reverse() };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    this.indexWritten();
    const responseId = this.items.get(owner)?.get(id);
    const entry = responseId === undefined ? undefined : this.read(responseId, owner);
    if (!entry) return undefined;
    // A request's item_references usually point into the same few responses: parsing and scanning the
    // whole response per reference made N references into an N-item response quadratic.
    let last = this.lastItems?.deref();
    if (last?.entry !== entry) {
      const byId = new Map<string, ItemField>();
      forEachItem(parse(entry), (item, itemId) => {
        if (!byId.has(itemId)) byId.set(itemId, item);
      });
      last = { entry, byId };
      this.lastItems = new WeakRef(last);
    }
    const item = last.byId.get(id);
    return item && structuredClone(item);
  }

  /**
   * The items of the entry `getItem` read last, by id (a rewrite makes a new entry, so it is never stale).
   * Weakly held: the parsed items can be several times the entry's bytes, and nothing counts them, so a
   * collection may drop them (lookups close together still share them).
   */
  private lastItems: WeakRef<{ entry: Entry; byId: Map<string, ItemField> }> | undefined;

  async put(entry: StoredResponse, owner: string, text?: StoredResponseText): Promise<boolean> {
    return this.putNow(entry, owner, text);
  }

  /**
   * `put` without its promise, for a caller in this process that waits for nothing else (the turn runner,
   * through `putAtOnce`); throws what `put` rejects with.
   * @internal
   */
  putNow(entry: StoredResponse, owner: string, text?: StoredResponseText): boolean {
    const id = entry.response.id;
    const current = this.entries.get(id, false);
    if (current && (current.owner !== owner || current.status === 'cancelled')) return false;
    this.write(entry, owner, text);
    return true;
  }

  async update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    const entry = this.read(id, owner);
    if (!entry) return undefined;
    // Synchronous from read to write: nothing else can run in between.
    const next = change(parse(entry));
    if (!next) return parse(entry);
    this.write(next, owner);
    const written = this.entries.get(id, false);
    return written && parse(written);
  }

  /** Deletes the stored response `id` of `owner`; whether there was one. */
  async delete(id: string, owner: string): Promise<boolean> {
    if (!this.read(id, owner)) return false;
    return this.entries.delete(id);
  }

  private read(id: string, owner: string): Entry | undefined {
    const entry = this.entries.get(id);
    return entry?.owner === owner ? entry : undefined;
  }

  /**
   * A JSON text as kept: a short one, or a long Latin-1 one while the heap's share has room beside `pending`
   * bytes of this entry's, as the string it is; else a Latin-1 one as its Latin-1 bytes, any other as UTF-8.
   */
  private keep(text: string, pending: number): Kept {
    if (text.length <= LONGEST_STRING) return text;
    if (PAST_LATIN1.test(text)) return this.keepUtf8([text], text.length);
    if (this.heapTextBytes + pending + text.length <= this.maxHeapTextBytes) return text;
    return NodeBuffer ? new Latin1Bytes(NodeBuffer.from(text, 'latin1')) : encoder.encode(text);
  }

  /**
   * Input JSON given in pieces as kept: a long Latin-1 text in several pieces copied into chunks outside the
   * heap (see `ChunkedText`; not counted in `maxHeapTextBytes`), a long one past Latin-1 encoded into chunks
   * (`keepUtf8`), any other as `keep` keeps their concatenation.
   */
  private keepPieces(pieces: readonly string[], pending: number): Kept {
    // One piece is a string made already (an item longer than a piece): kept as it is, it costs no copy.
    if (pieces.length === 1) return this.keep(pieces[0]!, pending);
    let length = 0;
    let latin1 = true;
    for (const piece of pieces) {
      latin1 &&= !PAST_LATIN1.test(piece);
      length += piece.length;
    }
    if (!latin1 && length > LONGEST_STRING) return this.keepUtf8(pieces, length);
    return length < CHUNKED_CHARS || !NodeBuffer
      ? this.keep(pieces.join(''), pending)
      : this.chunks.take(pieces, length);
  }

  /**
   * A text past Latin-1 (`length` characters in `pieces`) as UTF-8: a long one encoded into chunks used again
   * (see `Utf8ChunkedText`), else its bytes. A fresh allocation that large is memory that only a full
   * collection frees once its entry is evicted: a 32 MiB store turning over 2 MiB texts held 69-101 MiB of
   * array buffers at its RSS peak, 38-60 MiB in chunks (issue 35). The chunks an evicted entry gives back
   * take the next one's text, and encoding into them costs less than the encoder's fresh array (2 MiB of
   * mostly ASCII, a micro-measure: 2.7 ms against 5.7).
   */
  private keepUtf8(pieces: readonly string[], length: number): Kept {
    return length >= CHUNKED_CHARS && NodeBuffer && !cutsPair(pieces)
      ? this.chunks.takeUtf8(pieces)
      : encoder.encode(pieces.length === 1 ? pieces[0]! : pieces.join(''));
  }

  private write(entry: StoredResponse, owner: string, text?: StoredResponseText): void {
    const id = entry.response.id;
    const itemIds: string[] = [];
    // Ids are counted two bytes a character: V8 may keep them in its two-byte form.
    let size = ENTRY_OVERHEAD + 2 * (owner.length + id.length);
    forEachItem(entry, (_item, itemId) => {
      itemIds.push(itemId);
      size += ITEM_OVERHEAD + 2 * itemId.length;
    });
    const response = this.keep(text?.response ?? JSON.stringify(entry.response), 0);
    const input = text?.inputPieces
      ? this.keepPieces(text.inputPieces, heapShare(response))
      : this.keep(text?.input ?? JSON.stringify(entry.input), heapShare(response));
    const heapTextBytes = heapShare(response) + heapShare(input);
    size += keptBytes(response) + keptBytes(input);
    if (size > this.maxBytes) {
      this.giveBack(response);
      this.giveBack(input);
      throw new StoreEntryTooLargeError(
        `Response '${id}' is too large to store (${size} bytes; the store holds ${this.maxBytes}).`,
      );
    }
    const kept: Entry = {
      id,
      owner,
      response,
      input,
      previous: entry.response.previous_response_id ?? null,
      status: entry.response.status,
      itemIds,
      size,
      heapTextBytes,
      used: 0,
      older: undefined,
      newer: undefined,
    };
    this.entries.set(kept);
    this.heapTextBytes += heapTextBytes;
    this.unindexed.add(kept);
  }

  /** Gives a kept text's chunks back to the pool. */
  private giveBack(kept: Kept): void {
    if (kept instanceof ChunkedText) this.chunks.giveBack(kept);
  }

  /** Adds the items of the entries written since the last lookup to `items`, in the order they were written. */
  private indexWritten(): void {
    for (const entry of this.unindexed) {
      let owned = this.items.get(entry.owner);
      if (!owned) this.items.set(entry.owner, (owned = new Map()));
      for (const itemId of entry.itemIds) owned.set(itemId, entry.id);
    }
    this.unindexed.clear();
  }
}

/**
 * A wrapper's own `putAtOnce` (the store spans' wrapper, stores/store-spans.ts): it stores at once when the store it
 * wraps does, so a traced turn's write into the memory store makes no promise either.
 */
export const PUT_AT_ONCE = Symbol('putAtOnce');

/** A store wrapper with its own `putAtOnce` (`PUT_AT_ONCE`). */
interface PutsAtOnce {
  [PUT_AT_ONCE](entry: StoredResponse, owner: string, text?: StoredResponseText): boolean | Promise<boolean>;
}

/**
 * Stores `entry` in `store` at once when it is this process's memory store with its own `put` (no promise, no
 * microtask), or a wrapper that stores at once when what it wraps does, else through `put`.
 */
export function putAtOnce(
  store: ResponseStore,
  entry: StoredResponse,
  owner: string,
  text?: StoredResponseText,
): boolean | Promise<boolean> {
  if (store.put === InMemoryResponseStore.prototype.put)
    return (store as InMemoryResponseStore).putNow(entry, owner, text);
  const wrapper = store as Partial<PutsAtOnce>;
  return wrapper[PUT_AT_ONCE] !== undefined ? wrapper[PUT_AT_ONCE](entry, owner, text) : store.put(entry, owner, text);
}
