/** What `UseOrder` keeps per key: the value itself carries its place in the use order, so a write allocates nothing more. */
export interface UseOrderEntry {
  /** Its key. */
  readonly id: string;
  /** What it costs against `maxBytes`, counted once when it is written. */
  readonly size: number;
  /** When it was last written or read with `refresh` (the clock's ms): it expires `ttlMs` after. */
  used: number;
  /** Its neighbours in the use order (undefined at the ends and when not held). */
  older: UseOrderEntry | undefined;
  newer: UseOrderEntry | undefined;
}

/** What `new UseOrder(options)` takes. */
export interface UseOrderOptions<T extends UseOrderEntry> {
  /** Most entries held (0: no bound by count). */
  maxEntries: number;
  /** Most bytes held, as the entries count them. */
  maxBytes: number;
  /** How long an entry is held after it was last written or read, in ms (0: for ever). */
  ttlMs: number;
  /** The clock, in ms. */
  now: () => number;
  /** Told of every entry that leaves: evicted, expired, replaced or deleted. */
  dropped: (entry: T) => void;
}

/**
 * Entries by key, least recently used first out, bounded by count and bytes, each expiring `ttlMs` after its
 * last use (found expired when next read; until then it counts). A `Map` for lookups and a doubly linked list
 * through the entries for the use order: a read moves its entry to the newest end without touching the
 * `Map` (a `Map` reordered by delete and set walks the deleted slots at its front on every eviction:
 * 8.2-8.8 µs a write at 1,000 entries, in bench/hot-path.bench.ts's note), and nothing is allocated beside
 * the entry. It replaced `lru-cache` (3.4 MB installed, `engines` without Node 21, a diagnostics channel
 * check and a timer per `ttl` millisecond on the hot path), with the same semantics for what the store uses.
 */
export class UseOrder<T extends UseOrderEntry> {
  private readonly byKey = new Map<string, T>();
  private oldest: T | undefined;
  private newest: T | undefined;
  private heldBytes = 0;

  constructor(private readonly options: UseOrderOptions<T>) {
    for (const name of ['maxEntries', 'maxBytes', 'ttlMs'] as const) {
      const value = options[name];
      if (!Number.isSafeInteger(value) || value < 0)
        throw new TypeError(`${name} must be a non-negative integer (got ${value}).`);
    }
  }

  /** Entries held, expired ones included until they are next read. */
  get size(): number {
    return this.byKey.size;
  }

  /** Bytes held, as counted against `maxBytes`. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The entry of `id` made the most recently used (and, with `refresh`, its time to live restarted), or undefined. */
  get(id: string, refresh = true): T | undefined {
    const entry = this.byKey.get(id);
    if (entry === undefined) return undefined;
    const { ttlMs } = this.options;
    if (ttlMs !== 0) {
      const now = this.options.now();
      if (now - entry.used > ttlMs) {
        this.remove(entry);
        return undefined;
      }
      if (refresh) entry.used = now;
    }
    if (entry !== this.newest) {
      this.unlink(entry);
      this.link(entry);
    }
    return entry;
  }

  /**
   * Holds `entry` as the most recently used (replacing the one of its id), first evicting the least recently
   * used while the count or the bytes would pass their bounds. The caller refuses an entry larger than
   * `maxBytes`.
   */
  set(entry: T): void {
    const { maxEntries, maxBytes } = this.options;
    entry.used = this.options.ttlMs === 0 ? 0 : this.options.now();
    const current = this.byKey.get(entry.id);
    if (current !== undefined) this.remove(current);
    else if (maxEntries !== 0 && this.byKey.size >= maxEntries) this.remove(this.oldest!);
    while (this.oldest !== undefined && this.heldBytes + entry.size > maxBytes) this.remove(this.oldest);
    this.byKey.set(entry.id, entry);
    this.link(entry);
    this.heldBytes += entry.size;
  }

  /** Drops the entry of `id`; whether there was one. */
  delete(id: string): boolean {
    const entry = this.byKey.get(id);
    if (entry === undefined) return false;
    this.remove(entry);
    return true;
  }

  private remove(entry: T): void {
    this.byKey.delete(entry.id);
    this.unlink(entry);
    this.heldBytes -= entry.size;
    this.options.dropped(entry);
  }

  private link(entry: T): void {
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  private unlink(entry: T): void {
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer as T | undefined;
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older as T | undefined;
    entry.older = entry.newer = undefined;
  }
}
