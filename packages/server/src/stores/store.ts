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
  /** `use` is the entry's position in `order` (absolute), refreshed each time it is used. */
  private readonly entries = new Map<string, { entry: StoredResponse; touched: number; use: number }>();
  private readonly items = new Map<string, { item: ItemField; owner: string }>();
  /**
   * Ids in order of use, oldest first, with stale positions skipped on eviction. A queue rather than the
   * Map's own order: deleting from a Map's front and iterating to it skips ever more holes.
   */
  private order: string[] = [];
  /** Absolute position of `order[0]`, and of the oldest position not yet passed by eviction. */
  private orderBase = 0;
  private oldest = 0;
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
    const now = this.now();
    if (now - found.touched > this.ttlMs) {
      this.remove(id);
      return undefined;
    }
    found.touched = now;
    found.use = this.used(id);
    return found.entry;
  }

  async put(entry: StoredResponse): Promise<void> {
    const id = entry.response.id;
    this.remove(id);
    this.entries.set(id, { entry, touched: this.now(), use: this.used(id) });
    forEachItem(entry, (item, itemId) => this.items.set(itemId, { item, owner: id }));
    while (this.entries.size > this.maxEntries) this.evictOldest();
  }

  async delete(id: string): Promise<boolean> {
    return this.remove(id);
  }

  async getItem(id: string): Promise<ItemField | undefined> {
    const found = this.items.get(id);
    if (!found) return undefined;
    return (await this.get(found.owner)) ? found.item : undefined;
  }

  /** Appends a use of `id` to the order; returns its position. */
  private used(id: string): number {
    // Stale positions (refreshed, replaced, deleted ids) pile up between evictions: compact now and then.
    if (this.order.length > 2 * this.entries.size + 1024) this.compact();
    this.order.push(id);
    return this.orderBase + this.order.length - 1;
  }

  private evictOldest(): void {
    for (;;) {
      const position = this.oldest++;
      const id = this.order[position - this.orderBase]!;
      // Only an entry's latest use counts; earlier positions of a refreshed, replaced or deleted id are stale.
      if (this.entries.get(id)?.use === position) {
        this.remove(id);
        return;
      }
    }
  }

  /** Keeps only the latest use of each live entry, in order, renumbered from `oldest`. */
  private compact(): void {
    const live: string[] = [];
    let next = this.oldest;
    for (let position = this.oldest; position < this.orderBase + this.order.length; position++) {
      const id = this.order[position - this.orderBase]!;
      const found = this.entries.get(id);
      if (found?.use === position) {
        found.use = next++;
        live.push(id);
      }
    }
    this.order = live;
    this.orderBase = this.oldest;
  }

  private remove(id: string): boolean {
    const found = this.entries.get(id);
    if (!found) return false;
    this.entries.delete(id);
    forEachItem(found.entry, (_item, itemId) => {
      if (this.items.get(itemId)?.owner === id) this.items.delete(itemId);
    });
    return true;
  }
}

/** Every input and output item of a stored response that has an id. */
function forEachItem(entry: StoredResponse, visit: (item: ItemField, itemId: string) => void): void {
  for (const list of [entry.input, entry.response.output]) {
    for (const item of list) {
      const itemId = (item as { id?: string }).id;
      if (itemId) visit(item, itemId);
    }
  }
}
