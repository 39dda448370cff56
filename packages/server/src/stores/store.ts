import type { ItemField, ResponseResource } from '@openresponses/types';

/** What a server keeps of a response so that later turns can continue from it. */
export interface StoredResponse {
  response: ResponseResource;
  /** The turn's own input, normalised to items with ids (what `GET …/input_items` lists). */
  input: ItemField[];
}

/** Where responses live between turns. Implementations must be safe for concurrent use. */
export interface ResponseStore {
  get(id: string): Promise<StoredResponse | undefined>;
  put(entry: StoredResponse): Promise<void>;
  delete(id: string): Promise<boolean>;
  /** An input or output item of any stored response, for `item_reference`. */
  getItem(id: string): Promise<ItemField | undefined>;
}

export interface InMemoryStoreOptions {
  /** Most responses kept; the least recently used goes first (default 10,000). */
  maxEntries?: number;
  /** How long a response is kept after it was last used, in ms (default one hour). */
  ttlMs?: number;
  now?: () => number;
}

/**
 * The default store: bounded by entry count (least recently used evicted first) and by age (entries
 * unused for `ttlMs` expire). Memory stays flat once the bound is reached.
 */
export class InMemoryResponseStore implements ResponseStore {
  private readonly entries = new Map<string, { entry: StoredResponse; touched: number }>();
  private readonly items = new Map<string, { item: ItemField; owner: string }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: InMemoryStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const found = this.entries.get(id);
    if (!found) return undefined;
    if (this.now() - found.touched > this.ttlMs) {
      this.remove(id);
      return undefined;
    }
    // Map order is the LRU order: re-insert on use.
    this.entries.delete(id);
    found.touched = this.now();
    this.entries.set(id, found);
    return found.entry;
  }

  async put(entry: StoredResponse): Promise<void> {
    const id = entry.response.id;
    this.remove(id);
    this.entries.set(id, { entry, touched: this.now() });
    for (const list of [entry.input, entry.response.output]) {
      for (const item of list) {
        const itemId = (item as { id?: string }).id;
        if (itemId) this.items.set(itemId, { item, owner: id });
      }
    }
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value!);
  }

  async delete(id: string): Promise<boolean> {
    return this.remove(id);
  }

  async getItem(id: string): Promise<ItemField | undefined> {
    const found = this.items.get(id);
    if (!found) return undefined;
    return (await this.get(found.owner)) ? found.item : undefined;
  }

  private remove(id: string): boolean {
    const found = this.entries.get(id);
    if (!found) return false;
    this.entries.delete(id);
    for (const list of [found.entry.input, found.entry.response.output]) {
      for (const item of list) {
        const itemId = (item as { id?: string }).id;
        if (itemId && this.items.get(itemId)?.owner === id) this.items.delete(itemId);
      }
    }
    return true;
  }
}
