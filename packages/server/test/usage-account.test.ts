// The usage account of keys that are no tenant of a tenants file: kept wherever something can read it (the
// usage route, a quota backend another instance shares), and not kept where nothing can (`npm start`).
import { expect, test } from 'vitest';
import { createResponsesService, MemoryQuota, type ResponsesServiceOptions } from '../src/index.js';

const ADMIN = 'usage-admin-0123';
const today = () => new Date().toISOString().slice(0, 10);

async function turns(options: ResponsesServiceOptions, count: number) {
  const service = createResponsesService({ apiKeys: ['key-a'], tenants: { 'key-a': 'tenant-a' }, ...options });
  for (let i = 0; i < count; i++) {
    const answer = await service.fetch(
      new Request('http://test/v1/responses', {
        method: 'POST',
        headers: { authorization: 'Bearer key-a', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openresponses-deterministic', input: `Hello ${i}` }),
      }),
    );
    expect(answer.status).toBe(200);
  }
  return service;
}

test('the usage route counts the turns of a key that is no tenant (an admin key, no tenants file)', async () => {
  const service = await turns({ adminKey: ADMIN }, 3);
  const answer = await service.fetch(
    new Request(`http://test/v1/usage?tenant=tenant-a&from=${today()}&to=${today()}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    }),
  );
  const { data } = (await answer.json()) as { data: Array<{ requests: number; output_tokens: number }> };
  expect(data).toHaveLength(1);
  expect(data[0]!.requests).toBe(3);
  expect(data[0]!.output_tokens).toBeGreaterThan(0);
});

test('a quota backend given to the service (shared with other instances) counts them without a usage route', async () => {
  const quota = new MemoryQuota();
  await turns({ quota }, 2);
  const rows = await quota.usage({ tenants: ['tenant-a'], from: today(), to: today() });
  expect(rows.map((row) => row.requests)).toEqual([2]);
});
