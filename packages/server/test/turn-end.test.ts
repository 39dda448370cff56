// However a turn ends, its tenant's account hears of it before the client does: the runner calls its end
// (the usage settlement, the turn slot given back) when the model finished, when the turn failed to begin,
// when its response could not be stored, and when its model failed. A tenant with one turn slot on the real
// server, driven with the openai SDK: a slot that any of these kept would refuse the next turn with 429, and
// the usage endpoint counts exactly the turns that produced a response.
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { InMemoryResponseStore, resolveTenants } from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { startTestServer } from './harness.js';

const KEY = 'turn-end-key-0123';
const ADMIN = 'turn-end-admin-0123';
const model = 'openresponses-deterministic';
const sha256 = async (text: string) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('hex');

let server: RunningServer;
beforeAll(async () => {
  const tenantDirectory = await resolveTenants({
    tenants: [{ name: 'single', keys: [{ sha256: await sha256(KEY) }], limits: { turnsInFlight: 1 } }],
  });
  // Room for a short answer only: a long one is too large to store (413, thrown by the store at once).
  const store = new InMemoryResponseStore({ maxBytes: 4096 });
  server = await startTestServer({ tenantDirectory, adminKey: ADMIN, store });
});
afterAll(() => server.close());

const client = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { status?: number; code?: string }) => ({ status: error.status, code: error.code }),
  );

test('a turn slot is given back and usage accounted however the turn ends', async () => {
  const answered = [];
  answered.push(await client().responses.create({ model, input: 'Hello' }));
  // Fails to begin: the request is refused before any model runs.
  expect(
    await failureOf(client().responses.create({ model, input: 'Hi', temperature: 'hot' as unknown as number })),
  ).toMatchObject({ status: 400 });
  answered.push(await client().responses.create({ model, input: 'Hello again', store: false }));
  // Its response cannot be stored: the memory store refuses it synchronously.
  expect(await failureOf(client().responses.create({ model, input: 'a long answer [long]' }))).toEqual({
    status: 413,
    code: 'response_too_large',
  });
  answered.push(await client().responses.create({ model, input: 'Still here' }));
  // The model fails: a response (failed) is produced, and its usage counts.
  const failed = await failureOf(client().responses.create({ model, input: 'please [fail]' }));
  expect(failed?.status).toBeGreaterThanOrEqual(500);
  answered.push(await client().responses.create({ model, input: 'And once more', store: false }));
  for (const response of answered) expect(response.status).toBe('completed');

  const today = new Date().toISOString().slice(0, 10);
  const usage = await fetch(`${server.url}/v1/usage?tenant=single&from=${today}&to=${today}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  const { data } = (await usage.json()) as { data: Array<{ requests: number; output_tokens: number }> };
  // Four completed turns and the failed one produced responses; the refused and the unstored did not.
  expect(data).toHaveLength(1);
  expect(data[0]!.requests).toBe(5);
  const output = answered.reduce((sum, response) => sum + response.usage!.output_tokens, 0);
  expect(data[0]!.output_tokens).toBeGreaterThanOrEqual(output);
});
