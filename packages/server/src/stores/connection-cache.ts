import type { ItemField } from '@openresponses/types';
import type { ResponseStore, StoredChain, StoredResponse } from './contract.js';
import { InMemoryResponseStore } from './memory.js';

/**
 * A WebSocket connection's own responses (the spec's connection-local state, where `store: false`
 * responses live) as a layer over the shared store: reads look here first and then in the shared store,
 * a chain may start in the shared store and continue here, and writes go to the shared store. It is a
 * small in-memory store of the same contract, so ownership and copies behave the same in both layers.
 */
export class ConnectionCache implements ResponseStore {
  private readonly local: InMemoryResponseStore;

  constructor(
    private readonly shared: ResponseStore,
    options: { maxEntries?: number } = {},
  ) {
    this.local = new InMemoryResponseStore({ maxEntries: options.maxEntries ?? 32 });
  }

  /** Keeps a response of this connection (stored or not) for continuation on it. */
  async remember(entry: StoredResponse, owner: string): Promise<void> {
    await this.local.put(entry, owner);
  }

  /** Drops a response from this connection's layer (the spec's eviction after a failed continuation). */
  async forget(id: string, owner: string): Promise<void> {
    await this.local.delete(id, owner);
  }

  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    return (await this.local.get(id, owner)) ?? (await this.shared.get(id, owner));
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const near = await this.local.getChain(id, owner);
    if (near.missing === undefined) return near;
    const far = await this.shared.getChain(near.missing, owner);
    return far.missing === undefined
      ? { chain: [...far.chain, ...near.chain] }
      : { chain: [...far.chain, ...near.chain], missing: far.missing };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    return (await this.local.getItem(id, owner)) ?? (await this.shared.getItem(id, owner));
  }

  put(entry: StoredResponse, owner: string): Promise<boolean> {
    return this.shared.put(entry, owner);
  }

  update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    return this.shared.update(id, owner, change);
  }

  async delete(id: string, owner: string): Promise<boolean> {
    const here = await this.local.delete(id, owner);
    return (await this.shared.delete(id, owner)) || here;
  }
}
