import {
  findItem,
  forEachItem,
  parseStoredResponse,
  type ResponseStore,
  type StoredChain,
  type StoredResponse,
  StoreUnavailableError,
} from '@openresponses/server';
import type { ItemField } from '@openresponses/types';
import { Redis, type RedisOptions } from 'ioredis';
import { CHAIN, DELETE, GET, ITEM, LAYOUT, LAYOUT_CHECK, MIGRATE_RESPONSE, PUT } from './scripts.js';
import { defineQuotaCommands, type QuotaCommands, RedisQuota } from './quota.js';

/** What `RedisResponseStore.connect` takes (the README lists each option with its default). */
export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port/db` (or `rediss://` for TLS). */
  url: string;
  /** Key prefix, so several deployments can share one database (default `openresponses:`). */
  prefix?: string;
  /** How long a response is kept after it was last written or read, in ms (default 30 days, as OpenAI's API keeps them). */
  ttlMs?: number;
  /** Connections, used in turn; each pipelines the commands of concurrent requests (default 4). */
  poolSize?: number;
  /** Longest a command may take before the request fails with 503, in ms (default 2,000). */
  commandTimeoutMs?: number;
  /** Longest a connection attempt may take, in ms (default 2,000). */
  connectTimeoutMs?: number;
  /** Longest `previous_response_id` chain loaded (default 10,000 links): guards against cycles and runaway chains. */
  maxChainLength?: number;
  /** Extra ioredis options (TLS, sentinels, …). */
  redis?: RedisOptions;
}

type Scripted = Redis &
  QuotaCommands & {
    orPut(...args: string[]): Promise<number>;
    orGet(...args: string[]): Promise<[string, string] | null>;
    orChain(...args: string[]): Promise<[string, string[]]>;
    orItem(...args: string[]): Promise<string | null>;
    orDelete(...args: string[]): Promise<number>;
    orLayout(...args: string[]): Promise<string>;
    orMigrate(...args: string[]): Promise<number>;
  };

const CONFLICT = -3;

/**
 * A `ResponseStore` in Redis, shared by every server instance that points at the same database. Each
 * operation is one Lua script (atomic, one round trip): a response and its items are written together
 * or not at all, and a whole `previous_response_id` chain loads in one call however long it is.
 * Failures (unreachable, timed out) throw `StoreUnavailableError`; the connections reconnect by
 * themselves, and commands are never queued while disconnected (they fail at once instead).
 */
export class RedisResponseStore implements ResponseStore {
  private readonly clients: Scripted[];
  private readonly prefix: string;
  private readonly ttl: string;
  private readonly maxChainLength: string;
  private next = 0;

  private constructor(clients: Scripted[], options: RedisStoreOptions) {
    this.clients = clients;
    this.prefix = options.prefix ?? 'openresponses:';
    this.ttl = String(options.ttlMs ?? 30 * 24 * 60 * 60 * 1000);
    this.maxChainLength = String(options.maxChainLength ?? 10_000);
  }

  /** Connects the pool; throws `StoreUnavailableError` naming the URL when Redis cannot be reached. */
  static async connect(options: RedisStoreOptions): Promise<RedisResponseStore> {
    // ioredis rejects connect() with "Connection is closed"; the socket's own error (ECONNREFUSED host:port,
    // ENOTFOUND, a TLS failure) arrives as an 'error' event first: that is the cause worth naming.
    let socketError: Error | undefined;
    const clients = Array.from({ length: Math.max(1, options.poolSize ?? 4) }, () => {
      const client = new Redis(options.url, {
        lazyConnect: true,
        enableOfflineQueue: false,
        enableAutoPipelining: true,
        maxRetriesPerRequest: 0,
        commandTimeout: options.commandTimeoutMs ?? 2_000,
        connectTimeout: options.connectTimeoutMs ?? 2_000,
        // Reconnect for as long as the process runs, at most a second apart.
        retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
        ...options.redis,
      }) as Scripted;
      // Connection errors surface as failed commands (503s); the client keeps reconnecting meanwhile.
      client.on('error', (error: Error) => {
        socketError ??= error;
      });
      client.defineCommand('orPut', { numberOfKeys: 0, lua: PUT });
      client.defineCommand('orGet', { numberOfKeys: 0, lua: GET });
      client.defineCommand('orChain', { numberOfKeys: 0, lua: CHAIN });
      client.defineCommand('orItem', { numberOfKeys: 0, lua: ITEM });
      client.defineCommand('orDelete', { numberOfKeys: 0, lua: DELETE });
      client.defineCommand('orLayout', { numberOfKeys: 0, lua: LAYOUT_CHECK });
      client.defineCommand('orMigrate', { numberOfKeys: 0, lua: MIGRATE_RESPONSE });
      defineQuotaCommands(client);
      return client;
    });
    try {
      await Promise.all(clients.map((client) => client.connect()));
    } catch (error) {
      for (const client of clients) client.disconnect();
      const cause = socketError ?? error;
      throw new StoreUnavailableError(
        `Cannot reach Redis at ${redactedUrl(options.url)}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    const store = new RedisResponseStore(clients, options);
    const layout = await store
      .run((client) => client.orLayout(store.prefix, LAYOUT))
      .catch((error: unknown) => {
        for (const client of clients) client.disconnect();
        throw error;
      });
    if (layout !== LAYOUT) {
      await store.close();
      throw new StoreUnavailableError(
        `Redis at ${redactedUrl(options.url)} holds key layout '${String(layout).slice(0, 40)}' under the prefix '${store.prefix}'; this version of @openresponses/store-redis reads layout ${LAYOUT}.`,
      );
    }
    return store;
  }

  /**
   * Moves the item index of responses stored by versions before layout 2 (whose item keys were shared by
   * all tenants) to owner-scoped keys, so their items answer `item_reference` again. Safe to run while
   * serving and more than once; answers how many responses and item keys it visited. See the README's
   * "Migrating from layout 1".
   */
  async migrateItemKeys(): Promise<{
    /** Responses visited. */
    responses: number;
    /** Item keys moved to their owner-scoped name. */
    items: number;
  }> {
    const pattern = `${this.prefix.replace(/[*?[\]\\]/g, '\\$&')}response:*`;
    let responses = 0;
    let items = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.run((client) => client.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
      cursor = next;
      for (const key of keys) {
        responses++;
        items += await this.run((client) => client.orMigrate(this.prefix, key));
      }
    } while (cursor !== '0');
    return { responses, items };
  }

  /** The stored response `id` of `owner` (refreshing its time to live), or undefined. */
  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    const found = await this.run((client) => client.orGet(this.prefix, id, owner, this.ttl));
    return found ? parseStoredResponse(found[0], id) : undefined;
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const [missing, newestFirst] = await this.run((client) =>
      client.orChain(this.prefix, id, owner, this.ttl, this.maxChainLength),
    );
    const chain: StoredResponse[] = [];
    for (let i = newestFirst.length - 1; i >= 0; i--)
      chain.push(parseStoredResponse(newestFirst[i]!, i === 0 ? id : undefined));
    return missing === '' ? { chain } : { chain, missing };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    const data = await this.run((client) => client.orItem(this.prefix, id, owner, this.ttl));
    return data === null ? undefined : findItem(parseStoredResponse(data), id);
  }

  async put(entry: StoredResponse, owner: string): Promise<boolean> {
    return (await this.write(entry, owner, '')) > 0;
  }

  async update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    // Optimistic: read with its revision, write only if nobody wrote in between, else read again.
    for (let attempt = 0; ; attempt++) {
      const found = await this.run((client) => client.orGet(this.prefix, id, owner, this.ttl));
      if (!found) return undefined;
      const next = change(parseStoredResponse(found[0], id));
      if (!next) return parseStoredResponse(found[0], id);
      const written = await this.write(next, owner, found[1]);
      if (written > 0) return JSON.parse(JSON.stringify(next)) as StoredResponse;
      if (written !== CONFLICT) return (await this.get(id, owner)) ?? undefined;
      if (attempt >= 50) throw new StoreUnavailableError(`Response '${id}' is being changed too often to update.`);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
    }
  }

  /** Deletes the stored response `id` of `owner` and its item keys; whether there was one. */
  async delete(id: string, owner: string): Promise<boolean> {
    return (await this.run((client) => client.orDelete(this.prefix, id, owner))) === 1;
  }

  /**
   * Tenant admission over this store's connections (the service uses it by default): rates, leases, budgets and
   * usage shared by every instance on this Redis, under the same prefix.
   */
  quotaBackend(): RedisQuota {
    return new RedisQuota((command) => this.run(command), this.prefix);
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.quit().catch(() => client.disconnect())));
  }

  private write(entry: StoredResponse, owner: string, expectedRevision: string): Promise<number> {
    const itemIds: string[] = [];
    forEachItem(entry, (_item, itemId) => itemIds.push(itemId));
    const response = entry.response;
    return this.run((client) =>
      client.orPut(
        this.prefix,
        response.id,
        owner,
        response.previous_response_id ?? '',
        response.status,
        JSON.stringify(entry),
        itemIds.join('\n'),
        this.ttl,
        expectedRevision,
      ),
    );
  }

  /** Runs a command on the next connection of the pool; every Redis failure becomes StoreUnavailableError. */
  private async run<T>(command: (client: Scripted) => Promise<T>): Promise<T> {
    const client = this.clients[this.next]!;
    this.next = (this.next + 1) % this.clients.length;
    try {
      return await command(client);
    } catch (error) {
      throw new StoreUnavailableError(`Redis failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
