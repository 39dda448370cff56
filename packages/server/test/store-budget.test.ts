// The in-memory store's byte budget bounds what the process holds (issue 23, finding 9: with the default
// 256 MiB store, four clients storing 1 MiB inputs drove RSS from 229 MB to 1,775 MB). The real CLI as a
// child with a small budget, clients storing inputs that together are six times the budget; the child's
// resident memory is sampled throughout.
import { afterAll, expect, test } from 'vitest';
import { type ChildServer, startChildServer } from './child-server.js';

const KEY = 'store-budget-key-0123';
const MIB = 1024 * 1024;
const BUDGET = 32 * MIB;
const INPUT_BYTES = 2 * MIB;
const CLIENTS = 4;
const REQUESTS = 100;
/**
 * What serving the load costs besides the store: four 2 MiB requests in flight (body bytes, the parsed
 * body, the turn's copies) and the allocators' slack. The same load with `store: false` grew RSS by
 * 69 MB; stored, 141 to 170 MB with this fix and 269 to 401 MB before it (16 and 32 MiB budgets),
 * when a stored response was a JSON string (often kept two bytes a character and as a rope of heap
 * pieces that eviction left fragmented) and the budget counted its length.
 */
const ALLOWANCE = 192 * MIB;

let server: ChildServer | undefined;
afterAll(() => server?.stop());

test('storing six times the budget keeps RSS growth within 2x the budget plus the serving allowance', async () => {
  server = await startChildServer(['--port', '0', '--api-key', KEY, '--store-max-bytes', String(BUDGET)]);
  const child = server;
  const create = async (input: string) => {
    const response = await fetch(`${child.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openresponses-deterministic', input, store: true }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  };
  // Warm the code paths once (modules load lazily), then take the idle baseline.
  await create('warm-up');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idle = child.rss();
  let peak = idle;
  const sampler = setInterval(() => {
    if (child.alive()) peak = Math.max(peak, child.rss());
  }, 25);

  const ids: string[] = [];
  let sent = 0;
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (sent < REQUESTS) {
          const turn = sent++;
          // Mostly ASCII with a character past Latin-1, as real text is.
          ids[turn] = await create(`${turn} ✓ ${'x'.repeat(INPUT_BYTES - 16)}`);
        }
      }),
    );
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, child.rss());
  const growth = peak - idle;
  console.log(
    `store budget ${BUDGET / MIB} MiB: idle RSS ${(idle / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB, growth ${(growth / MIB).toFixed(0)} MiB`,
  );
  expect(growth, 'RSS growth over the idle baseline').toBeLessThan(2 * BUDGET + ALLOWANCE);

  // The store did evict (the oldest is gone) and kept the newest.
  const status = async (id: string) =>
    (await fetch(`${child.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).status;
  expect(await status(ids[0]!)).toBe(404);
  expect(await status(ids[REQUESTS - 1]!)).toBe(200);
}, 180_000);
