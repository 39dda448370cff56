import { getHeapStatistics } from 'node:v8';
import { redactSecretShapes } from '../redaction.js';
import type { ResponseStore } from '../stores/contract.js';
import { InMemoryResponseStore } from '../stores/memory.js';

/**
 * An in-memory store for this process: long Latin-1 texts may take a quarter of the heap's limit as strings
 * (the rest of the budget is kept outside the heap), so a full store never brings the heap to its fatal limit.
 * The CLI's store and `startServer`'s default.
 */
export const memoryStore = (maxBytes?: number) =>
  new InMemoryResponseStore({ maxBytes, maxHeapTextBytes: Math.floor(getHeapStatistics().heap_size_limit / 4) });

/** The part of `@openresponses/store-redis` this module uses (it is an optional install). */
interface RedisStoreModule {
  RedisResponseStore: { connect(options: { url: string }): Promise<ResponseStore> };
}

/**
 * The store a URL names: `memory` (the default), `redis://host:port/db` (`rediss://` for TLS) or a Redis
 * Cluster `redis+cluster://host:port[,host:port…]` (`rediss+cluster://`), which need `@openresponses/store-redis`
 * installed. When Redis cannot be reached this throws, unless
 * `fallback` is `memory`: then it warns loudly and answers an in-memory store (responses are then
 * neither shared with other instances nor kept across restarts). `maxBytes` bounds an in-memory store.
 */
export async function storeFromUrl(
  url: string | undefined,
  options: { fallback?: string; maxBytes?: number; warn?: (message: string) => void } = {},
): Promise<ResponseStore> {
  if (options.fallback !== undefined && options.fallback !== 'memory')
    throw new Error(`unsupported store fallback '${options.fallback}' (the only one is 'memory')`);
  if (url === undefined || url === '' || url === 'memory' || url === 'memory://') return memoryStore(options.maxBytes);
  if (!/^rediss?(\+cluster)?:\/\//.test(url))
    throw new Error(
      `unsupported store URL '${url.split('@').at(-1)}': use redis://host:port/db, redis+cluster://host:port or memory`,
    );
  let module: RedisStoreModule;
  try {
    // A variable specifier: the Redis client stays an optional install that the server does not depend on.
    const name = '@openresponses/store-redis';
    module = (await import(name)) as RedisStoreModule;
  } catch (error) {
    throw new Error('a redis:// store needs the Redis store package: npm install @openresponses/store-redis', {
      cause: error,
    });
  }
  try {
    return await module.RedisResponseStore.connect({ url });
  } catch (error) {
    if (options.fallback !== 'memory') throw error;
    (options.warn ?? console.warn)(
      `WARNING: ${(error as Error).message}. Serving with the in-memory store instead (--store-fallback memory): responses are NOT shared with other instances and are lost on restart.`,
    );
    return memoryStore(options.maxBytes);
  }
}

/** A URL as the banner shows it: without the user name and password it may carry, and redacted (`?token=…`). */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return redactSecretShapes(url.split('@').at(-1)!);
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return redactSecretShapes(parsed.href);
}

/** What the banner says about the store a URL names (credentials left out). */
export function describeStoreUrl(url: string | undefined, maxBytes?: number): string {
  if (url === undefined || url === '' || url === 'memory' || url === 'memory://')
    return `memory (this process only${maxBytes === undefined ? '' : `, ${maxBytes} bytes at most`})`;
  return `${withoutCredentials(url)} (shared by every instance using it)`;
}
