// Tenant admission on a real redis-server: the quota contract (as the memory backend passes it), one script
// per check, and the store's fault rules while Redis is away: 503 store_unavailable, or the in-memory fallback
// when configured — never unlimited.
import { resolveTenants } from '@openresponses/server';
import { startServer } from '@openresponses/server/node';
import { describeQuotaContract } from '@openresponses/server/testing';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RedisResponseStore } from '../src/index.js';
import { type RedisServer, startRedis } from '../../../test-support/redis-server.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.dispose());

const stores = new WeakMap<object, RedisResponseStore>();
describeQuotaContract(
  'redis',
  {
    create: async () => {
      const store = await RedisResponseStore.connect({ url: redis.url, prefix: `q${Math.random()}:` });
      const backend = store.quotaBackend();
      stores.set(backend, store);
      return backend;
    },
    close: async (backend) => stores.get(backend)?.close(),
  },
  { describe, test, expect },
);

const sha256 = async (text: string) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');

describe('RedisQuota', () => {
  test('each check is one script on the server', async () => {
    const store = await RedisResponseStore.connect({ url: redis.url, poolSize: 1, prefix: 'one:' });
    const monitor = new Redis(redis.url);
    try {
      const quota = store.quotaBackend();
      await quota.takeRequest('warm', 10);
      const commands: string[] = [];
      const watcher = await monitor.monitor();
      watcher.on('monitor', (_time: string, args: string[]) => commands.push(args[0]!.toLowerCase()));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await quota.takeRequest('acme', 10);
      await new Promise((resolve) => setTimeout(resolve, 100));
      watcher.disconnect();
      expect(commands.filter((c) => c === 'evalsha' || c === 'eval')).toHaveLength(1);
    } finally {
      monitor.disconnect();
      await store.close();
    }
  });

  test('Redis away: tenant limits answer 503 store_unavailable, or count in memory with the fallback', async () => {
    const own = await startRedis();
    const directory = await resolveTenants({
      tenants: [{ name: 'acme', keys: [{ sha256: await sha256('acme-key') }], limits: { requestsPerMinute: 2 } }],
    });
    const store = await RedisResponseStore.connect({ url: own.url, commandTimeoutMs: 300, connectTimeoutMs: 300 });
    const warnings: string[] = [];
    const strict = await startServer({ store, tenantDirectory: directory, warn: () => {} });
    const lenient = await startServer({
      store,
      tenantDirectory: directory,
      quota: store.quotaBackend(),
      quotaFallback: 'memory',
      warn: (message) => warnings.push(message),
    });
    const ask = (url: string) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey: 'acme-key', maxRetries: 0 }).models.list().then(
        () => 200,
        (error: { status?: number; code?: string }) => `${error.status} ${error.code}`,
      );
    try {
      expect(await ask(strict.url)).toBe(200);
      await own.stop();
      expect(await ask(strict.url)).toBe('503 store_unavailable');
      // The fallback counts in this process: still limited, two a minute.
      const counted = [await ask(lenient.url), await ask(lenient.url), await ask(lenient.url)];
      expect(counted).toEqual([200, 200, '429 rate_limit_exceeded']);
    } finally {
      await strict.close();
      await lenient.close();
      await store.close();
      await own.dispose();
    }
  });
});
