import type { ItemField } from '@openresponses/types';
import { LRUCache } from 'lru-cache';
import {
  forEachItem,
  StoreEntryTooLargeError,
  type ResponseStore,
  type StoredChain,
  type StoredResponse,
} from './contract.js';

export interface InMemoryStoreOptions {
  /** Most responses kept; the least recently used goes first (default 10,000). */
  maxEntries?: number;
  /**
   * Approximate bytes kept (the length of each response's JSON with its input); the least recently used
   * go first to stay under it (default 256 MiB). A single response larger than this is not stored.
   */
  maxBytes?: number;
  /** How long a response is kept after it was last written or read, in ms (default one hour). */
  ttlMs?: number;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/** Bytes counted per entry beyond its JSON (the bookkeeping objects, roughly). */
const ENTRY_OVERHEAD = 64;

interface Entry {
  owner: string;
  /** The snapshot, as JSON: reads parse a fresh copy, and its length is the entry's size. */
  json: string;
  previous: string | null;
  status: string;
  itemIds: string[];
}

/**
 * The default store, in this process's memory: bounded by entry count and by approximate bytes (least
 * recently used evicted first), with entries unused for `ttlMs` expiring. Built on `lru-cache`, which
 * measured as fast as our own use-order queue (bench/store.bench.ts) and brings byte budgets with it.
 */
export class InMemoryResponseStore implements ResponseStore {
  private readonly entries: LRUCache<string, Entry>;
  /** Item id -> the response that holds it (for `item_reference`). */
  private readonly items = new Map<string, string>();
  private readonly maxBytes: number;

  constructor(options: InMemoryStoreOptions = {}) {
    const now = options.now;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.entries = new LRUCache<string, Entry>({
      max: options.maxEntries ?? 10_000,
      maxSize: this.maxBytes,
      sizeCalculation: (entry) => entry.json.length + ENTRY_OVERHEAD,
      ttl: options.ttlMs ?? 60 * 60 * 1000,
      updateAgeOnGet: true,
      ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
      dispose: (entry, id) => {
        for (const itemId of entry.itemIds) if (this.items.get(itemId) === id) this.items.delete(itemId);
      },
    });
  }

  /** Responses held now (expired ones may count until they are next touched). */
  get size(): number {
    return this.entries.size;
  }

  /** Approximate bytes held now. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    const entry = this.read(id, owner);
    return entry && (JSON.parse(entry.json) as StoredResponse);
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const chain: StoredResponse[] = [];
    const seen = new Set<string>();
    for (let next: string | null = id; next !== null; ) {
      const entry: Entry | undefined = seen.has(next) ? undefined : this.read(next, owner);
      if (!entry) return { chain: chain.reverse(), missing: next };
      seen.add(next);
      chain.push(JSON.parse(entry.json) as StoredResponse);
      next = entry.previous;
    }
    return { chain: chain.reverse() };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    const responseId = this.items.get(id);
    const entry = responseId === undefined ? undefined : this.read(responseId, owner);
    if (!entry) return undefined;
    // A request's item_references usually point into the same few responses: parsing and scanning the
    // whole response per reference made N references into an N-item response quadratic.
    if (this.lastItems?.entry !== entry) {
      const byId = new Map<string, ItemField>();
      forEachItem(JSON.parse(entry.json) as StoredResponse, (item, itemId) => {
        if (!byId.has(itemId)) byId.set(itemId, item);
      });
      this.lastItems = { entry, byId };
    }
    const item = this.lastItems.byId.get(id);
    return item && structuredClone(item);
  }

  /** The items of the entry `getItem` read last, by id (a rewrite makes a new entry, so it is never stale). */
  private lastItems: { entry: Entry; byId: Map<string, ItemField> } | undefined;

  async put(entry: StoredResponse, owner: string): Promise<boolean> {
    const id = entry.response.id;
    const current = this.entries.get(id, { updateAgeOnGet: false });
    if (current && (current.owner !== owner || current.status === 'cancelled')) return false;
    this.write(entry, owner);
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
    const next = change(JSON.parse(entry.json) as StoredResponse);
    if (!next) return JSON.parse(entry.json) as StoredResponse;
    this.write(next, owner);
    return JSON.parse(this.entries.get(id, { updateAgeOnGet: false })?.json ?? 'null') ?? undefined;
  }

  async delete(id: string, owner: string): Promise<boolean> {
    if (!this.read(id, owner)) return false;
    return this.entries.delete(id);
  }

  private read(id: string, owner: string): Entry | undefined {
    const entry = this.entries.get(id);
    return entry?.owner === owner ? entry : undefined;
  }

  private write(entry: StoredResponse, owner: string): void {
    const id = entry.response.id;
    const itemIds: string[] = [];
    forEachItem(entry, (_item, itemId) => itemIds.push(itemId));
    const json = JSON.stringify(entry);
    if (json.length + ENTRY_OVERHEAD > this.maxBytes)
      throw new StoreEntryTooLargeError(
        `Response '${id}' is too large to store (${json.length} bytes; the store holds ${this.maxBytes}).`,
      );
    this.entries.set(id, {
      owner,
      json,
      previous: entry.response.previous_response_id ?? null,
      status: entry.response.status,
      itemIds,
    });
    for (const itemId of itemIds) this.items.set(itemId, id);
  }
}
