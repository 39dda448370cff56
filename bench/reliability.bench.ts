// Request-size-dependent paths scale linearly: each case runs at 1x, 10x and 100x of its size through
// the service (the built package, in process) and prints the time ratios against linear growth
// (`t(10x) / (10 * t(1x))`; target: within 1.5x of linear). The sizes are the large versions of the
// hostile-client tests: 100,000 items for truncation and compaction, 100,000 item references, chains
// of 5,000 turns, 1,000,000 characters of text for the embedded model's text matching.
import { PerformanceObserver } from 'node:perf_hooks';
import {
  createResponsesService,
  DeterministicModel,
  InMemoryResponseStore,
  type ResponsesService,
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
// The text-matching cases need one long message to fit the model's context window.
const wideService = createResponsesService({
  store,
  providers: [new DeterministicModel({ contextWindow: 10_000_000 })],
  limits: { maxBodyBytes: 256 * 1024 * 1024 },
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

async function send(request: ServiceRequest, via: ResponsesService = service): Promise<Record<string, unknown>> {
  const response = await via.handle(request);
  if (response.status !== 200) throw new Error(`${response.status}: ${String(response.body).slice(0, 300)}`);
  return JSON.parse(response.body as string) as Record<string, unknown>;
}

/** Garbage collections seen during the run (the observer delivers them a little later; read at the end). */
const collections: Array<{ start: number; end: number }> = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    collections.push({ start: entry.startTime, end: entry.startTime + entry.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });

/** One timed request: when it started and ended (performance.now()). */
interface Sample {
  start: number;
  end: number;
}

/** Runs one request after a full collection, so each starts from the same heap. */
async function sample(request: () => ServiceRequest, via: ResponsesService): Promise<Sample> {
  const prepared = request();
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  await send(prepared, via);
  return { start, end: performance.now() };
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The median total time of the samples, and the median time outside garbage collection (ms). */
function summarize(samples: Sample[]): { total: number; outsideGc: number } {
  const gcWithin = ({ start, end }: Sample) =>
    collections.reduce((sum, gc) => sum + Math.max(0, Math.min(end, gc.end) - Math.max(start, gc.start)), 0);
  return {
    total: median(samples.map((s) => s.end - s.start)),
    outsideGc: median(samples.map((s) => s.end - s.start - gcWithin(s))),
  };
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
  /** The service to time (default: the one with a small context window). */
  via?: ResponsesService;
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
    // Facts the embedded model recalls: values that never end in `.` (each `?` ends one) used to be rescanned
    // from every later statement.
    name: 'model recall (characters)',
    base: 10_000,
    via: wideService,
    setup: async (n) => {
      const statement = 'my favorite color is blue and remember that it is ';
      const text = `${statement.repeat(Math.ceil(n / statement.length))}?\n`.slice(-n);
      return () => post('/v1/responses', { input: text, store: false });
    },
  },
  {
    // The embedded model's reply split into words: a reply ending in spaces used to be rescanned from each.
    name: 'model reply words (characters)',
    base: 10_000,
    via: wideService,
    setup: async (n) => {
      const instructions = `Reply with "ok${' '.repeat(n)}"`;
      return () => post('/v1/responses', { input: 'hi', instructions, store: false });
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

const SCALES = [1, 10, 100] as const;
/** Requests per size in each round: the small sizes are quick and noisier, so they get more samples. */
const REPEATS = { 1: 9, 10: 3, 100: 1 } as const;
const ROUNDS = 5;

export async function run(): Promise<void> {
  console.log(
    `\nRequest-size-dependent paths: ${ROUNDS} rounds alternating the sizes (1x ${ROUNDS * REPEATS[1]}, 10x ${ROUNDS * REPEATS[10]}, 100x ${ROUNDS * REPEATS[100]} in-process requests, a full GC before each), medians in ms;`,
  );
  console.log('ratio to linear = t(kx) / (k * t(1x)), of the total time and of the time outside garbage collection');
  console.log(
    `${'case'.padEnd(40)} ${'1x'.padStart(8)} ${'10x'.padStart(8)} ${'100x'.padStart(8)}   ${'10x/lin'.padStart(8)} ${'100x/lin'.padStart(8)}   ${'no-GC 10x'.padStart(9)} ${'no-GC 100x'.padStart(10)}`,
  );
  let worst = 0;
  let worstOutsideGc = 0;
  // BENCH_CASES=lookups,chain runs only the cases whose names contain one of the words.
  const only = process.env.BENCH_CASES?.split(',');
  for (const c of cases.filter((each) => !only || only.some((word) => each.name.includes(word)))) {
    const via = c.via ?? service;
    const requests = new Map<number, () => ServiceRequest>();
    const samples = new Map<number, Sample[]>();
    for (const scale of SCALES) {
      const request = await c.setup(c.base * scale);
      await send(request(), via); // warm-up
      requests.set(scale, request);
      samples.set(scale, []);
    }
    // Alternating sizes within each round: a burst of load on the shared machine hits all sizes alike.
    for (let round = 0; round < ROUNDS; round++)
      for (const scale of SCALES)
        for (let i = 0; i < REPEATS[scale]; i++) samples.get(scale)!.push(await sample(requests.get(scale)!, via));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the last GC entries
    const [s1, s10, s100] = SCALES.map((scale) => summarize(samples.get(scale)!)) as [
      ReturnType<typeof summarize>,
      ReturnType<typeof summarize>,
      ReturnType<typeof summarize>,
    ];
    const ratio = (k: number, t: number, t1: number) => t / (k * t1);
    const r = [ratio(10, s10.total, s1.total), ratio(100, s100.total, s1.total)];
    const g = [ratio(10, s10.outsideGc, s1.outsideGc), ratio(100, s100.outsideGc, s1.outsideGc)];
    worst = Math.max(worst, ...r);
    worstOutsideGc = Math.max(worstOutsideGc, ...g);
    const ms = (t: number) => t.toFixed(1).padStart(8);
    const x = (v: number, width: number) => `${v.toFixed(2)}x`.padStart(width);
    console.log(
      `${`${c.name} ${c.base.toLocaleString('en-US')}`.padEnd(40)} ${ms(s1.total)} ${ms(s10.total)} ${ms(s100.total)}   ${x(r[0]!, 8)} ${x(r[1]!, 8)}   ${x(g[0]!, 9)} ${x(g[1]!, 10)}`,
    );
  }
  gcObserver.disconnect();
  console.log(
    `worst ratio to linear: ${worst.toFixed(2)}x total, ${worstOutsideGc.toFixed(2)}x outside garbage collection (target <= 1.50x)`,
  );
}
