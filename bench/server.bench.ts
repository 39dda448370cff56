// Reference server under concurrent load on loopback (the loader runs in its own process), side by side with a bare node:http server that
// returns the same precomputed bytes (the ceiling): requests/s, p50/p99 latency, streamed events/s, and
// heap across 10,000 requests with the in-memory store at its bound; and a stored turn with a 1 MiB input
// against JSON.parse + JSON.stringify of its request and response (issue 35).
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { load, median, rps, type LoadResult } from './fixtures/load.js';
import type { AddressInfo } from 'node:net';
import { startServer } from '@openresponses/server/node';
import { DeterministicModel, InMemoryResponseStore } from '@openresponses/server';

const BODY = JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello! My name is Ada. What can you do?' });

const heapMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

/*
 * Profile note (issue 35, main at 1492b9d, 2026-11-28): where the reference server's CPU per request goes,
 * from `perf record -F 4999 -g` (CPU-clock samples, every thread, kernel included) of a server process under
 * this bench's loader (32 keep-alive connections, `--perf-basic-prof-only-functions`), each sample charged to
 * its innermost JavaScript frame. The machine was shared (load average 7-8), which inflates every figure by
 * ~1.8x (the bare server cost 63 µs here, 33 µs idle); the shares are what carry over.
 *
 *                                          stored (184 µs)   store: false (108 µs)   bare node:http (63 µs)
 *   Node's HTTP exchange (llhttp, streams,   40.6%  75 µs       41.9%  45 µs            86% of it   53 µs
 *     socket, writev and its wake-ups, ticks)
 *   the turn (route handler down: runner,    39.0%  72 µs       39.7%  43 µs            -
 *     model, writer, store, lru-cache)
 *   ours in front of it (adapter, middleware, 9.3%  17 µs       10.7%  12 µs            -
 *     router, body read, its JSON.parse)
 *   GC (all threads)                          5.0%   9 µs        2.5%   3 µs            2.8%         2 µs
 *   JIT left over at that load                4.8%   9 µs        3.7%   4 µs            8.4%         5 µs
 *
 * Ours, per request idle (scaled): JSON.parse of the body ~1.5 µs (floor), the overhead header's `toFixed`
 * ~0.3 µs (telemetry), `Buffer.byteLength` of the answer ~0.3 µs, request id, admission and middleware layers
 * ~2 µs, the adapter's Cancellation and `close` listener ~0.5 µs; the body is now taken from the request's
 * buffer when it has arrived whole (no listeners, promise or flowing mode: Node's readable-stream share fell
 * from 3.6 to 1.6 µs a request). Node's exchange costs ~1.4x the bare server's own in the reference server:
 * the same code runs colder beside a turn, and each writev wakes a loader that was waiting (a CPU-bound
 * server pays that; the bare one, bounded by its loader, finds it running).
 *
 * Why 0.8x of the bare server's requests/s is out of reach from the HTTP side (idle figures on 03a3ec7):
 * bare 15,405 req/s x 33 µs = 0.51 of a core, so the loader (~65 µs a request on the other core) bounds it;
 * the reference 8,582 req/s x 104 µs = 0.89 of a core, bound by its own CPU. 0.8x = 12,324 req/s asks for
 * <= ~81 µs a request. Node's exchange alone is 33 µs at best (~42 µs as it runs beside a turn), the turn
 * with its GC ~46 µs (`service.handle` in one process: 33-49 µs stored), ours ~10 µs with ~5 µs of it the
 * floor of any server (parse, headers, id): 33 + 46 + 5 = 84 µs even with Node's exchange at the bare
 * server's cost, so 0.8x needs the turn itself ~25% cheaper (to ~34 µs), not a cheaper adapter.
 */
export async function run(): Promise<void> {
  const store = new InMemoryResponseStore({ maxEntries: 1000 });
  const reference = await startServer({ store, warn: () => {} });
  // The ceiling: the same bytes the reference server answers, precomputed.
  const precomputed = await (
    await fetch(`${reference.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
    })
  ).text();
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(precomputed));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1/responses`;

  const concurrency = 32;
  for (let i = 0; i < 2; i++) {
    await load(bareUrl, BODY, concurrency, 0.5);
    await load(`${reference.url}/v1/responses`, BODY, concurrency, 0.5);
  }
  // Alternating rounds, so a noisy neighbour or a GC-heavy moment hits both servers alike; the median
  // round is reported (single 3 s runs on a 2-core machine varied by up to 2x).
  // Each round also records this process's CPU per request (both servers run here, one loaded at a time):
  // on a shared machine the ratio of CPU per request moves much less with the load than req/s.
  const withCpu = async (url: string) => {
    const before = process.cpuUsage();
    const result = await load(url, BODY, concurrency, 2);
    const cpu = process.cpuUsage(before);
    return Object.assign(result, { cpuPerRequest: (cpu.user + cpu.system) / result.requests });
  };
  const rounds: Array<{
    bare: LoadResult & { cpuPerRequest: number };
    reference: LoadResult & { cpuPerRequest: number };
  }> = [];
  for (let round = 0; round < 5; round++) {
    rounds.push({ bare: await withCpu(bareUrl), reference: await withCpu(`${reference.url}/v1/responses`) });
  }
  const ratios = rounds.map((r) => rps(r.reference) / rps(r.bare));
  const bareResult = median(
    rounds.map((r) => r.bare),
    rps,
  );
  const referenceResult = median(
    rounds.map((r) => r.reference),
    rps,
  );
  console.log(
    `\nNon-streaming POST /v1/responses, ${concurrency} concurrent keep-alive connections from a separate loader process, 5 alternating rounds of 2 s (${precomputed.length} bytes per answer); median round; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  console.log(`${'server'.padEnd(34)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`);
  for (const [name, r] of [
    ['bare node:http (precomputed bytes)', bareResult],
    ['reference server (embedded model)', referenceResult],
  ] as const) {
    console.log(
      `${name.padEnd(34)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(9)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
    );
  }
  console.log(
    `ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios, (r) => r).toFixed(2)}x of the bare server (target >= 0.80x)`,
  );
  const cpuRatios = rounds.map((r) => r.bare.cpuPerRequest / r.reference.cpuPerRequest);
  console.log(
    `server CPU per request: bare ${median(
      rounds.map((r) => r.bare.cpuPerRequest),
      (x) => x,
    ).toFixed(0)} µs, reference ${median(
      rounds.map((r) => r.reference.cpuPerRequest),
      (x) => x,
    ).toFixed(
      0,
    )} µs; bare / reference per round ${cpuRatios.map((r) => r.toFixed(2)).join(' ')}; median ${median(cpuRatios, (r) => r).toFixed(2)}x (the req/s ratio a CPU-bound server would reach)`,
  );

  const streamBody = JSON.stringify({
    model: 'openresponses-deterministic',
    input: 'Tell me a long story [long]',
    stream: true,
    store: false,
  });
  const streamed = await load(`${reference.url}/v1/responses`, streamBody, 16, 3);
  const eventsPerStream = (
    await (
      await fetch(`${reference.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: streamBody,
      })
    ).text()
  )
    .split('\n\n')
    .filter((b) => b.startsWith('event:')).length;
  console.log(
    `\nStreaming (SSE), 16 concurrent: ${Math.round(rps(streamed))} streams/s x ${eventsPerStream} events = ${Math.round(rps(streamed) * eventsPerStream).toLocaleString('en-US')} events/s`,
  );

  const before = heapMb();
  await load(`${reference.url}/v1/responses`, BODY, 16, 120, 2_000);
  const atBound = heapMb();
  await load(`${reference.url}/v1/responses`, BODY, 16, 300, 10_000);
  const after = heapMb();
  console.log(
    `\nHeap with the in-memory store bounded at 1,000 responses: ${before.toFixed(1)} MB before, ${atBound.toFixed(1)} MB after 2,000 requests, ${after.toFixed(1)} MB after 10,000 more (store holds ${store.size})`,
  );
  await reference.close();
  await new Promise<void>((resolve) => bare.close(() => resolve()));
  await largeStoredTurn();
}

/**
 * About 1 MiB of conversation: alternating user and assistant messages of ~1 KB, then a question. The
 * server's own figure is this process's CPU per turn under load (the loader is another process); the floor
 * is the least any server does with the same bytes, parsing and serializing its request and its answer
 * once each, measured here between the load rounds.
 *
 * Profile note (issue 35 item 4, main at 93e9413, `service.handle` in one process, `--cpu-prof`, load ~15),
 * each cost as a multiple of the turn's `JSON.parse` of the body: the one `JSON.stringify` of the input and
 * response for the store and the wire 1.65x; the memory store's UTF-8 encoding of the input's JSON 1.1x;
 * the collector 1.2x; the parse itself 1x; the embedded model's word count for its usage 0.75x (SWAR over
 * ASCII, 2.5x faster than before; the window check no longer counts a context its length shows fits);
 * normalizing the input items 0.3x; the depth scan 0.2x. In process the turn was 2.8x-3.0x the floor
 * (from 3.6x-3.8x before this work); over HTTP the socket reads and the body's copy add to it.
 *
 * Over HTTP at 1492b9d (`perf record` of the server under this loader, CPU-clock samples of every thread,
 * load average 7.4: 13.2 ms a turn): GC 19% (2.5 ms, mostly concurrent marking on V8's threads); the one
 * `JSON.stringify` of input and response for the store and the wire 18% (2.4 ms); the memory store's UTF-8
 * copy of that JSON 19% with its page faults (2.5 ms); `JSON.parse` of the body 10% (1.3 ms); the embedded
 * model's word count for its usage 9% (1.1 ms); the depth scan 2%, normalizing the input 2%, the turn's
 * preparation 2%; Node's side of the exchange (llhttp, socket reads, the adapter, decoding the body) ~7%
 * (0.9 ms). The floor (parse and stringify of request and answer) is about a quarter of the turn (idle on
 * 03a3ec7: 3.6 ms against 13.6-15.7 ms).
 * Reading the body: a 1 MiB body of 16 chunks joined and decoded in 380-790 µs with `Buffer.concat`,
 * 240-390 µs in the adapter's kept scratch buffer (one process, load ~5); its page faults are gone from the
 * profile. What remains above the floor is the store's second copy, GC and the usage count: not the HTTP side.
 */
function largeInputBody(): string {
  const sentence = 'the quick brown fox jumps over the lazy dog and keeps running across the open field. ';
  const input: unknown[] = [];
  for (let size = 0, turn = 0; size < 1024 * 1024; turn++) {
    const text = `Turn ${turn}: ${sentence.repeat(12)}`;
    input.push(
      turn % 2 === 0
        ? { type: 'message', role: 'user', content: [{ type: 'input_text', text }] }
        : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] },
    );
    size += text.length + 80;
  }
  input.push({ type: 'message', role: 'user', content: 'What can you do with all of this?' });
  return JSON.stringify({ model: 'openresponses-deterministic', input });
}

export async function largeStoredTurn(): Promise<void> {
  // ~190,000 word tokens: over the embedded model's default 128,000-token window, so a long-context one.
  const server = await startServer({
    warn: () => {},
    providers: [new DeterministicModel({ contextWindow: 1_000_000 })],
  });
  const url = `${server.url}/v1/responses`;
  const body = largeInputBody();
  const answer = await (
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  ).text();
  const floor = () => {
    JSON.stringify(JSON.parse(body));
    JSON.stringify(JSON.parse(answer));
  };
  const concurrency = 4;
  await load(url, body, concurrency, 1);
  for (let i = 0; i < 20; i++) floor();
  const rounds: Array<{ turn: number; floor: number }> = [];
  for (let round = 0; round < 5; round++) {
    let before = process.cpuUsage();
    const result = await load(url, body, concurrency, 2);
    let cpu = process.cpuUsage(before);
    const turn = (cpu.user + cpu.system) / result.requests;
    before = process.cpuUsage();
    for (let i = 0; i < 50; i++) floor();
    cpu = process.cpuUsage(before);
    rounds.push({ turn, floor: (cpu.user + cpu.system) / 50 });
  }
  const ratios = rounds.map((r) => r.turn / r.floor);
  console.log(
    `\nStored turn with a ${(body.length / 1024 / 1024).toFixed(2)} MiB input (embedded model, ${concurrency} concurrent, default limits and store), 5 alternating rounds; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  console.log(
    `server CPU per turn ${(median(rounds, (r) => r.turn).turn / 1000).toFixed(1)} ms; JSON.parse + JSON.stringify of its request and answer ${(median(rounds, (r) => r.floor).floor / 1000).toFixed(1)} ms; turn / floor per round ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${median(ratios, (r) => r).toFixed(2)}x (target <= 3x)`,
  );
  await server.close();
}
