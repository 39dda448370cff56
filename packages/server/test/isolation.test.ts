// Tenant isolation on one server with the in-memory store (the Redis store runs the same suite across two
// processes in @openresponses/store-redis), plus keys configured to share a tenant.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { describeTenantIsolation } from '../src/testing/index.js';
import { startTestServer } from './harness.js';

const KEYS = ['key-of-tenant-a-0123', 'key-of-tenant-b-4567', 'second-key-of-a-8901'] as const;
let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ apiKeys: KEYS, tenants: { [KEYS[0]]: 'tenant-a', [KEYS[2]]: 'tenant-a' } });
});
afterAll(() => server.close());

describeTenantIsolation('memory store', () => ({ urls: [server.url], keys: [KEYS[0], KEYS[1]] }), {
  describe,
  test,
  expect,
});

test('keys configured for one tenant share its responses', async () => {
  const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const created = await fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: headers(KEYS[0]),
    body: JSON.stringify({ model: 'openresponses-deterministic', input: 'hello' }),
  });
  const { id } = (await created.json()) as { id: string };
  expect((await fetch(`${server.url}/v1/responses/${id}`, { headers: headers(KEYS[2]) })).status).toBe(200);
  expect((await fetch(`${server.url}/v1/responses/${id}`, { headers: headers(KEYS[1]) })).status).toBe(404);
});
