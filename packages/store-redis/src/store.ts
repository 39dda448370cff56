import {
  findItem,
  forEachItem,
  parseStoredResponse,
  type ResponseStore,
  type StoredChain,
  type StoredResponse,
  type StoredResponseText,
  StoreUnavailableError,
} from '@openresponses/server';
import type { ItemField } from '@openresponses/types';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { CHAIN, DELETE, GET, ITEM, LAYOUT, LAYOUT_CHECK, MIGRATE_RESPONSE, PUT } from './scripts.js';
import { defineQuotaCommands, type QuotaCommands, RedisQuota } from './quota.js';

/** What `RedisResponseStore.connect` takes (the README lists each option with its default). */
export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port/db` (`rediss://` for TLS), or a Redis Cluster:
   * `redis+cluster://[user:password@]host:port[,host:port…]` (`rediss+cluster://` for TLS), naming one or more
   * of its nodes (the client discovers the others).
   */
  url: string;
  /** Key prefix, so several deployments can share one database (default `openresponses:`). */
  prefix?: string;
  /** How long a response is kept after it was last written or read, in ms (default 30 days, as OpenAI's API keeps them). */
  ttlMs?: number;
  /** Connections, used in turn; each pipelines the commands of concurrent requests (default 4; on a cluster, one client per node). */
  poolSize?: number;
  /** Longest a command may take before the request fails with 503, in ms (default 2,000). */
  commandTimeoutMs?: number;
  /** Longest a connection attempt may take, in ms (default 2,000). */
  connectTimeoutMs?: number;
  /** Longest `previous_response_id` chain loaded (default 10,000 links): guards against cycles and runaway chains. */
  maxChainLength?: number;
  /** Extra ioredis options (TLS, sentinels, …); on a cluster, the options of each node's connection. */
  redis?: RedisOptions;
  /** Extra options of ioredis's `Cluster` client (a `redis+cluster://` URL only). */
  cluster?: ClusterOptions;
}

type Scripted = Redis &
  QuotaCommands & {
    orPut(keyCount: string, ...args: Array<string | Buffer>): Promise<number>;
    orGet(...args: string[]): Promise<[string, string] | null>;
    orChain(...args: string[]): Promise<[string, string[]]>;
    orItem(...args: string[]): Promise<[string, string?] | null>;
    orDelete(...args: string[]): Promise<number>;
    orLayout(...args: string[]): Promise<string>;
    orMigrate(...args: string[]): Promise<number>;
  };

const CONFLICT = -3;

/**
 * A `ResponseStore` in Redis (one node or a Redis Cluster), shared by every server instance that points at the
 * same database. Each operation is one Lua script (atomic, one round trip): a response and its items are
 * written together or not at all, and a whole `previous_response_id` chain loads in one call however long it
 * is. All keys of one owner share a hash tag (one Cluster slot). Failures (unreachable, timed out) throw
 * `StoreUnavailableError`; the connections reconnect by themselves, and commands are never queued while
 * disconnected (they fail at once instead).
 */
export class RedisResponseStore implements ResponseStore {
  private readonly clients: Scripted[];
  private readonly prefix: string;
  private readonly ttl: string;
  private readonly maxChainLength: number;
  private next = 0;

  private constructor(clients: Scripted[], options: RedisStoreOptions) {
    this.clients = clients;
    this.prefix = options.prefix ?? 'openresponses:';
    this.ttl = String(options.ttlMs ?? 30 * 24 * 60 * 60 * 1000);
    this.maxChainLength = options.maxChainLength ?? 10_000;
  }

  /**
   * Connects and checks the key layout; throws `StoreUnavailableError` naming the URL when Redis cannot be
   * reached, or when the database holds another layout (see `migrate`).
   */
  static async connect(options: RedisStoreOptions): Promise<RedisResponseStore> {
    const store = await RedisResponseStore.open(options);
    const layout = await store
      .run((client) => client.orLayout(`${store.prefix}layout`, LAYOUT))
      .catch(async (error: unknown) => {
        await store.close();
        throw error;
      });
    if (layout !== LAYOUT) {
      await store.close();
      const older = layout === '1' || layout === '2';
      throw new StoreUnavailableError(
        `Redis at ${redactedUrl(options.url)} holds key layout '${String(layout).slice(0, 40)}' under the prefix '${store.prefix}'; this version of @openresponses/store-redis reads layout ${LAYOUT}${older ? ': stop the older instances and run RedisResponseStore.migrate({ url, prefix }) once (README "Migrating to layout 3")' : ''}.`,
      );
    }
    return store;
  }

  /**
   * Moves a single-node database written by layout 1 or 2 (keys without the owner's hash tag) to layout 3, then
   * records layout 3. Run it once with the instances of the older version stopped; safe to run again (it moves
   * only what is left). Answers how many responses and item keys it moved. See the README's "Migrating to
   * layout 3".
   */
  static async migrate(options: RedisStoreOptions): Promise<{
    /** Responses moved to their owner's keys. */
    responses: number;
    /** Item keys written under their owner's keys. */
    items: number;
  }> {
    if (clusterUrl(options.url))
      throw new Error('layouts 1 and 2 never ran on Redis Cluster: there is nothing to migrate there');
    const store = await RedisResponseStore.open({ ...options, poolSize: 1 });
    try {
      const layoutKey = `${store.prefix}layout`;
      const layout = await store.run((client) => client.get(layoutKey));
      if (layout !== null && layout !== '1' && layout !== '2' && layout !== LAYOUT)
        throw new StoreUnavailableError(
          `Redis holds key layout '${layout.slice(0, 40)}': not one this version migrates.`,
        );
      const pattern = `${store.prefix.replace(/[*?[\]\\]/g, '\\$&')}response:*`;
      let responses = 0;
      let items = 0;
      let cursor = '0';
      do {
        const [next, keys] = await store.run((client) => client.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
        cursor = next;
        for (const key of keys) {
          responses++;
          items += await store.run((client) => client.orMigrate(store.prefix, key));
        }
      } while (cursor !== '0');
      await store.run((client) => client.set(layoutKey, LAYOUT));
      return { responses, items };
    } finally {
      await store.close();
    }
  }

  /** Connects the clients (a pool, or one cluster client) with the scripts defined, without the layout check. */
  private static async open(options: RedisStoreOptions): Promise<RedisResponseStore> {
    // ioredis rejects connect() with "Connection is closed"; the socket's own error (ECONNREFUSED host:port,
    // ENOTFOUND, a TLS failure) arrives as an 'error' event first: that is the cause worth naming.
    let socketError: Error | undefined;
    const connection: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 2_000,
      connectTimeout: options.connectTimeoutMs ?? 2_000,
      // Reconnect for as long as the process runs, at most a second apart.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    };
    const seeds = clusterUrl(options.url);
    const clients = (seeds
      ? [
          new Cluster(seeds.nodes, {
            lazyConnect: true,
            enableOfflineQueue: false,
            // Not auto-pipelined: ioredis batches by node, and a batch whose slots moved to different nodes
            // mid-migration fails whole ("All keys in the pipeline should belong to the same slots allocation group").
            enableAutoPipelining: false,
            // A script of several keys in a slot being migrated answers ASK, then TRYAGAIN until the slot has
            // moved: retry every 50 ms; commandTimeoutMs bounds the wait (then 503), not a count of redirections.
            retryDelayOnTryAgain: 50,
            maxRedirections: 200,
            clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
            redisOptions: { ...connection, ...seeds.credentials, ...options.redis },
            ...options.cluster,
          }),
        ]
      : Array.from(
          { length: Math.max(1, options.poolSize ?? 4) },
          () =>
            new Redis(options.url, {
              lazyConnect: true,
              enableAutoPipelining: true,
              ...connection,
              ...options.redis,
            }),
        )) as unknown as Scripted[];
    for (const client of clients) {
      // Connection errors surface as failed commands (503s); the client keeps reconnecting meanwhile.
      client.on('error', (error: Error) => {
        socketError ??= error;
      });
      // orPut names its key count (the response and each of its items).
      client.defineCommand('orPut', { lua: PUT });
      client.defineCommand('orGet', { numberOfKeys: 1, lua: GET });
      client.defineCommand('orChain', { numberOfKeys: 1, lua: CHAIN });
      client.defineCommand('orItem', { numberOfKeys: 1, lua: ITEM });
      client.defineCommand('orDelete', { numberOfKeys: 1, lua: DELETE });
      client.defineCommand('orLayout', { numberOfKeys: 1, lua: LAYOUT_CHECK });
      client.defineCommand('orMigrate', { numberOfKeys: 0, lua: MIGRATE_RESPONSE });
      defineQuotaCommands(client);
    }
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
    return new RedisResponseStore(clients, options);
  }

  /** The stored response `id` of `owner` (refreshing its time to live), or undefined. */
  async get(id: string, owner: string): Promise<StoredResponse | undefined> {
    const stem = this.stem(owner);
    const found = await this.run((client) => client.orGet(`${stem}response:${id}`, stem, owner, this.ttl));
    return found ? parseStoredResponse(found[0], id) : undefined;
  }

  async getChain(id: string, owner: string): Promise<StoredChain> {
    const stem = this.stem(owner);
    const newestFirst: string[] = [];
    let missing = id;
    // One call walks the whole chain. A link it did not find is asked for again by a call that declares its key,
    // which tells a link that is gone from one that moved to another node mid-migration (ioredis follows ASK):
    // one more round trip, only for a broken chain.
    for (;;) {
      const [notFound, links] = await this.run((client) =>
        client.orChain(
          `${stem}response:${missing}`,
          stem,
          missing,
          owner,
          this.ttl,
          String(this.maxChainLength - newestFirst.length),
        ),
      );
      newestFirst.push(...links);
      missing = notFound;
      if (missing === '' || links.length === 0) break;
    }
    const chain: StoredResponse[] = [];
    for (let i = newestFirst.length - 1; i >= 0; i--)
      chain.push(parseStoredResponse(newestFirst[i]!, i === 0 ? id : undefined));
    return missing === '' ? { chain } : { chain, missing };
  }

  async getItem(id: string, owner: string): Promise<ItemField | undefined> {
    const stem = this.stem(owner);
    const found = await this.run((client) => client.orItem(`${stem}item:${id}`, stem, owner, this.ttl));
    if (found === null) return undefined;
    // The item's response was not found where its item key is (expired, or moved mid-migration): read it directly.
    const entry = found[1] === undefined ? await this.get(found[0], owner) : parseStoredResponse(found[1]);
    return entry === undefined ? undefined : findItem(entry, id);
  }

  async put(entry: StoredResponse, owner: string, text?: StoredResponseText): Promise<boolean> {
    return (await this.write(entry, text ? recordOf(text) : JSON.stringify(entry), owner, '')) > 0;
  }

  async update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined> {
    const stem = this.stem(owner);
    // Optimistic: read with its revision, write only if nobody wrote in between, else read again.
    for (let attempt = 0; ; attempt++) {
      const found = await this.run((client) => client.orGet(`${stem}response:${id}`, stem, owner, this.ttl));
      if (!found) return undefined;
      const next = change(parseStoredResponse(found[0], id));
      if (!next) return parseStoredResponse(found[0], id);
      const record = JSON.stringify(next);
      const written = await this.write(next, record, owner, found[1]);
      if (written > 0) return JSON.parse(record) as StoredResponse;
      if (written !== CONFLICT) return (await this.get(id, owner)) ?? undefined;
      if (attempt >= 50) throw new StoreUnavailableError(`Response '${id}' is being changed too often to update.`);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
    }
  }

  /** Deletes the stored response `id` of `owner` and its item keys; whether there was one. */
  async delete(id: string, owner: string): Promise<boolean> {
    const stem = this.stem(owner);
    return (await this.run((client) => client.orDelete(`${stem}response:${id}`, stem, id, owner))) === 1;
  }

  /**
   * Tenant admission over this store's connections (the service uses it by default): rates, leases, budgets and
   * usage shared by every instance on this Redis (or Redis Cluster), under the same prefix.
   */
  quotaBackend(): RedisQuota {
    return new RedisQuota((command) => this.run(command), this.prefix);
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.quit().catch(() => client.disconnect())));
  }

  /**
   * The start of every key of `owner`: its braces are a Redis Cluster hash tag, so one owner's responses and
   * items share one slot; the owner's length in bytes makes the key unambiguous whatever the owner contains.
   */
  private stem(owner: string): string {
    return `${this.prefix}{${Buffer.byteLength(owner)}:${owner}}:`;
  }

  /**
   * Writes `entry` as `record` (its JSON, whole or in parts that the script joins) unless the stored revision is
   * no longer `expectedRevision` ('' for any).
   */
  private write(
    entry: StoredResponse,
    record: string | readonly Buffer[],
    owner: string,
    expectedRevision: string,
  ): Promise<number> {
    const stem = this.stem(owner);
    const itemIds: string[] = [];
    forEachItem(entry, (_item, itemId) => itemIds.push(itemId));
    const response = entry.response;
    return this.run((client) =>
      client.orPut(
        String(1 + itemIds.length),
        `${stem}response:${response.id}`,
        ...itemIds.map((itemId) => `${stem}item:${itemId}`),
        stem,
        response.id,
        owner,
        response.previous_response_id ?? '',
        response.status,
        itemIds.join('\n'),
        this.ttl,
        expectedRevision,
        ...(typeof record === 'string' ? [record] : record),
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

/**
 * The record of a turn given as JSON: `{"response":…,"input":…}`, one string; or, for an input given in pieces
 * (`StoredResponseText.inputPieces`, a long one), in parts, each piece its own UTF-8 bytes, which the put script
 * joins inside Redis. Joined here, a long input would be one large string (a V8 large object, fresh memory
 * from the kernel each time: ~257 page faults a MiB); with a Buffer among its arguments ioredis copies them
 * into one buffer outside the heap, whose memory malloc hands out again. A piece that ends inside a surrogate
 * pair could not be encoded alone: such pieces are joined.
 */
function recordOf(text: StoredResponseText): string | Buffer[] {
  const head = `{"response":${text.response},"input":`;
  const pieces = text.inputPieces;
  if (pieces === undefined || pieces.length < 2 || pieces.some(endsInsidePair)) return `${head}${text.input}}`;
  const parts = [Buffer.from(head)];
  for (const piece of pieces) parts.push(Buffer.from(piece));
  parts.push(Buffer.from('}'));
  return parts;
}

/** Whether `text` ends with the first half of a surrogate pair. */
const endsInsidePair = (text: string) => {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
};

/**
 * The nodes and credentials of a `redis+cluster://` or `rediss+cluster://` URL, or undefined for any other URL.
 * Throws on a malformed one (a database other than 0: a cluster has only that one).
 */
function clusterUrl(
  url: string,
):
  | { nodes: Array<{ host: string; port: number }>; credentials: Pick<RedisOptions, 'username' | 'password' | 'tls'> }
  | undefined {
  const match = /^(rediss?)\+cluster:\/\/(?:([^@/?#]*)@)?([^@/?#]+)(\/[^?#]*)?$/i.exec(url);
  if (!match) {
    if (/^rediss?\+cluster:/i.test(url))
      throw new StoreUnavailableError(
        `Unreadable Redis Cluster URL ${redactedUrl(url)}: use redis+cluster://[user:password@]host:port[,host:port…]`,
      );
    return undefined;
  }
  const [, scheme, userinfo, hosts, path] = match;
  if (path !== undefined && path !== '/' && path !== '/0')
    throw new StoreUnavailableError(`Redis Cluster has only database 0; ${redactedUrl(url)} names '${path.slice(1)}'.`);
  const nodes = hosts!.split(',').map((node) => {
    const parsed = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(node.trim());
    if (!parsed) throw new StoreUnavailableError(`Unreadable Redis Cluster node '${node}' in ${redactedUrl(url)}.`);
    return { host: parsed[1]!.replace(/^\[|\]$/g, ''), port: Number(parsed[2] ?? 6379) };
  });
  const cut = userinfo?.indexOf(':') ?? -1;
  const username = userinfo && decodeURIComponent(cut < 0 ? userinfo : userinfo.slice(0, cut));
  const password = userinfo && cut >= 0 ? decodeURIComponent(userinfo.slice(cut + 1)) : undefined;
  return {
    nodes,
    credentials: {
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      ...(scheme!.toLowerCase() === 'rediss' ? { tls: {} } : {}),
    },
  };
}

/** The URL without its password, for messages (any scheme, including a cluster's list of nodes). */
function redactedUrl(url: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (!match) return '(an unparsable URL)';
  const [, scheme, authority, rest] = match;
  const at = authority!.lastIndexOf('@');
  if (at < 0) return url;
  const userinfo = authority!.slice(0, at);
  const cut = userinfo.indexOf(':');
  return `${scheme}${cut < 0 ? userinfo : `${userinfo.slice(0, cut)}:***`}@${authority!.slice(at + 1)}${rest}`;
}
