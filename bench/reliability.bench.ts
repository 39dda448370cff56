// Request-size-dependent paths scale linearly: each case runs at 1x, 10x and 100x of its size through
// the service (the built package, in process) and prints the time ratios against linear growth
// (`t(10x) / (10 * t(1x))`; target: within 1.5x of linear). The sizes are the large versions of the
// hostile-client tests: 100,000 items for truncation and compaction, 100,000 item references, chains
// of 5,000 turns.
import {
  createResponsesService,
  DeterministicModel,
  InMemoryResponseStore,
  type ServiceRequest,
} from '@openresponses/server';

const store = new InMemoryResponseStore({ maxBytes: 2 * 1024 * 1024 * 1024 });
/** The tenant of every request on a server without keys. */
const OPEN_OWNER = 'open';
const service = createResponsesService({
  store,
  // A small context window so that truncation has most of the input to drop.
  providers: [new DeterministicModel({ contextWindow: 1_000 })],
  limits: { maxBodyBytes: 256 * 1024 * 1024, maxInputItems: 10_000_000 },
});

function post(path: string, body: unknown): ServiceRequest {
  const text = JSON.stringify(body);
  return {
    method: 'POST',
    path,
    header: (name) => (name === 'content-type' ? 'application/json' : null),
    text: async () => text,
  };
}

async function send(request: ServiceRequest): Promise<Record<string, unknown>> {
  const response = await service.handle(request);
  if (response.status !== 200) throw new Error(`${response.status}: ${String(response.body).slice(0, 300)}`);
  return JSON.parse(response.body as string) as Record<string, unknown>;
}

/** Milliseconds for one request, the median of `rounds` runs (after one warm-up run). */
async function timed(request: () => ServiceRequest, rounds = 5): Promise<number> {
  await send(request());
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const prepared = request();
    (globalThis as { gc?: () => void }).gc?.();
    const start = performance.now();
    await send(prepared);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const messages = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    i % 2 ? { role: 'user', content: `user words ${i}` } : { role: 'assistant', content: `assistant words ${i}` },
  );

/** A stored response holding `count` input items; returns its item ids. */
async function storedItems(count: number): Promise<string[]> {
  const stored = await send(post('/v1/responses', { input: messages(count), truncation: 'auto' }));
  const ids: string[] = [];
  for (let more = true; more; ) {
    const listed = await service.handle({
      method: 'GET',
      path: `/v1/responses/${String(stored.id)}/input_items`,
      query: `limit=100${ids.length ? `&after=${ids.at(-1)}` : ''}`,
      header: () => null,
      text: async () => '',
    });
    const page = JSON.parse(listed.body as string) as { data: Array<{ id: string }>; has_more: boolean };
    for (const item of page.data) ids.push(item.id);
    more = page.has_more;
  }
  return ids;
}

/** A chain of `turns` stored responses (written to the store directly: building it turn by turn would itself be quadratic); returns the last id. */
async function chain(turns: number): Promise<string> {
  const first = await send(post('/v1/responses', { input: 'turn 0' }));
  const firstStored = (await store.get(String(first.id), OPEN_OWNER))!;
  let previous = String(first.id);
  for (let i = 1; i < turns; i++) {
    const id = `resp_chain_${turns}_${i}`;
    const response = Object.assign({}, firstStored.response, { id, previous_response_id: previous, output: [] });
    const input = [Object.assign({}, firstStored.input[0], { id: `msg_chain_${turns}_${i}` })];
    await store.put({ response, input } as typeof firstStored, OPEN_OWNER);
    previous = id;
  }
  return previous;
}

interface Case {
  name: string;
  base: number;
  /** Prepares the input of size n; returns the request to time. */
  setup(n: number): Promise<() => ServiceRequest>;
}

const cases: Case[] = [
  {
    name: 'truncation: "auto" (items)',
    base: 1_000,
    setup: async (n) => {
      const input = messages(n);
      return () => post('/v1/responses', { input, truncation: 'auto', store: false });
    },
  },
  {
    name: 'compaction (items)',
    base: 1_000,
    setup: async (n) => {
      const input = messages(n);
      return () => post('/v1/responses/compact', { model: 'openresponses-deterministic', input });
    },
  },
  {
    name: 'item_reference lookups (references)',
    base: 1_000,
    setup: async (n) => {
      const ids = await storedItems(n);
      const input = ids.map((id) => ({ type: 'item_reference', id }));
      return () => post('/v1/responses', { input, truncation: 'auto', store: false });
    },
  },
  {
    name: 'previous_response_id chain walk (turns)',
    base: 50,
    setup: async (n) => {
      const last = await chain(n);
      return () =>
        post('/v1/responses', { input: 'and now?', previous_response_id: last, truncation: 'auto', store: false });
    },
  },
];

export async function run(): Promise<void> {
  console.log('\nRequest-size-dependent paths, median of 5 in-process requests per size (ms)');
  console.log(
    `${'case'.padEnd(40)} ${'1x'.padStart(9)} ${'10x'.padStart(9)} ${'100x'.padStart(9)}   10x/linear  100x/linear`,
  );
  let worst = 0;
  // BENCH_CASES=lookups,chain runs only the cases whose names contain one of the words.
  const only = process.env.BENCH_CASES?.split(',');
  for (const c of cases.filter((each) => !only || only.some((word) => each.name.includes(word)))) {
    const times: number[] = [];
    for (const scale of [1, 10, 100]) times.push(await timed(await c.setup(c.base * scale)));
    const [t1, t10, t100] = times as [number, number, number];
    const r10 = t10 / (10 * t1);
    const r100 = t100 / (100 * t1);
    worst = Math.max(worst, r10, r100);
    console.log(
      `${`${c.name} ${c.base.toLocaleString('en-US')}`.padEnd(40)} ${t1.toFixed(1).padStart(9)} ${t10.toFixed(1).padStart(9)} ${t100.toFixed(1).padStart(9)}   ${r10.toFixed(2).padStart(9)}x ${r100.toFixed(2).padStart(11)}x`,
    );
  }
  console.log(`worst ratio to linear: ${worst.toFixed(2)}x (target <= 1.50x)`);
}
