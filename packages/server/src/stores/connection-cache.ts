import type { ItemField } from '@openresponses/types';
import {
  type ResponseStore,
  type StoredChain,
  StoreEntryTooLargeError,
  type StoredResponse,
  type StoredResponseText,
} from './contract.js';
import { InMemoryResponseStore } from './memory.js';

/** Tells connections apart inside a shared layer. */
let connectionsOpened = 0;

/**
 * A WebSocket connection's own responses (the spec's connection-local state, where `store: false`
 * responses live) as a layer over the shared store: reads look here first and then in the shared store,
 * a chain may start in the shared store and continue here, and writes go to the shared store. The layer is
 * a small in-memory store of the same contract, so ownership and copies behave the same in both layers.
 *
 * The layer may be shared by all of a server's connections (`state`), so that one byte budget bounds them
 * together: each connection's entries are owned by its tenant and the connection, so no connection sees
 * another's, and it keeps at most `maxEntries` of its own (least recently used dropped first). A response
 * too large for the layer is not kept there; `clear` drops the connection's entries when it closes.
 */
export class ConnectionCache implements ResponseStore {
  private readonly local: InMemoryResponseStore;
  private readonly maxEntries: number;
  private readonly connection = String(++connectionsOpened);
  /** This connection's response ids in the layer (with their tenants), least recently used first. */
  private readonly recent = new Map<string, string>();

  constructor(
    private readonly shared: ResponseStore,
    options: { maxEntries?: number; state?: InMemoryResponseStore } = {},
  ) {
    this.maxEntries = options.maxEntries ?? 32;
    this.local = options.state ?? new InMemoryResponseStore({ maxEntries: this.maxEntries });
  }

  /** The owner of a tenant's entries in the layer: the tenant on this connection. */
  private mine(owner: string): string {
    return `${owner}\u0000${this.connection}`;
  }

  private touch(id: string, owner: string): void {
    this.recent.delete(id);
    this.recent.set(id, owner);
  }

  /** Keeps a response of this connection (stored or not) for continuation on it; `text` as for `put`. */
  async remember(entry: StoredResponse, owner: string, text?: StoredResponseText): Promise<void> {
    try {
      if (!(await this.local.put(entry, this.mine(owner), text))) return;
    } catch (error) {
      // Larger than the whole layer: continuation falls back to the shared store (or fails, for store: false).
      if (error instanceof StoreEntryTooLargeError) return;
      throw error;
    }
    this.touch(entry.response.id, owner);
    for (const [oldest, oldOwner] of this.recent) {
      if (this.recent.size <= this.maxEntries) break;
      this.recent.delete(oldest);
      await this.local.delete(oldest, this.mine(oldOwner));
    }
  }

  /** Drops a response from this connection's layer (the spec's eviction after a failed continuation). */
  async forget(id: string, owner: string): Promise<void> {
    this.recent.delete(id);
    await this.local.delete(id, this.mine(owner));
  }

  /** Drops all of this connection's responses from the layer (the connection closed). */
  async clear(): Promise<void> {
    const entries = [...this.recent];
    this.recent.clear();
    for (const [id, owner] of entries) await this.local.delete(id, this.mine(owner));
  }

  /** The response `id` of `owner`, from this connection's cache or the store. */
  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    const here = await this.local.get(id, this.mine(owner));
    if (!here) return this.shared.get(id, owner);
    this.touch(id, owner);
    return here;
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const near = await this.local.getChain(id, this.mine(owner));
    for (const stored of near.chain) this.touch(stored.response.id, owner);
    if (near.missing === undefined) return near;
    const far = await this.shared.getChain(near.missing, owner);
    return far.missing === undefined
      ? { chain: [...far.chain, ...near.chain] }
      : { chain: [...far.chain, ...near.chain], missing: far.missing };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    return (await this.local.getItem(id, this.mine(owner))) ?? (await this.shared.getItem(id, owner));
  }

  put(entry: StoredResponse, owner: string, text?: StoredResponseText): Promise<boolean> {
    return this.shared.put(entry, owner, text);
  }

  update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    return this.shared.update(id, owner, change);
  }

  /** Deletes the response `id` of `owner`, here and in the store. */
  async delete(id: string, owner: string): Promise<boolean> {
    this.recent.delete(id);
    const here = await this.local.delete(id, this.mine(owner));
    return (await this.shared.delete(id, owner)) || here;
  }
}
