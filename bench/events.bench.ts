// Streaming pipeline: decode + validate + accumulate a 2,000-event stream, side by side with JSON.parse
// of the same payloads and with eventsource-parser alone for the decode step (events per second).
// Then our SSE decoder against eventsource-parser with our strict layer on top, on three workloads, as
// the ratio ours / eventsource-parser measured round by round (above 1: ours is faster).
//
// Profile note (issue 35, 28 November 2026, sources in one process, interleaved CPU slices, load 12-17), the
// pipeline's cost per event in units of the JSON.parse of its payload: JSON.parse 1.00, the frame split (UTF-8
// decoding and lines) ~0.19, the decoder's checks, batching and the body's reads ~0.2, the standalone validator
// ~0.05, the accumulator ~0.12, the async iteration (one promise per event) ~0.1. In all 1.75 (0.57x) per event
// and 1.65 (0.61x) through batches(); 2.0 (0.50x) before (63af3c1). Tried and dropped: a loop over the field
// prefix's code units instead of startsWith (no gain; unrolled checks gained 15% of the split), templates for
// the delta events in encodeEvent (twice as fast as JSON.stringify, no gain once the string is flattened for the
// socket), reusing the response's JSON across response.created and response.in_progress (1-5% of encoding).
//
// Profile of what remains (issue 35's sixth session, 28 November 2026, dist on Node 20.20, --cpu-prof of the
// per-event pipeline over 16 KiB chunks, 20 s, load 7-8; shares of the samples after start-up, and in units
// of the JSON.parse inside the pipeline). V8's and Node's floor, 83%: JSON.parse 65.2% (1.000), for await
// per event 8.3% (0.128: the async function's resumption and the microtask of one resolved promise per
// event; the bench's own floor line below measures 0.10-0.12), UTF-8 decoding by TextDecoder 3.1% (0.048),
// the garbage collector 1.9% (0.029), the web stream's reads 1.2% (0.018). Ours, 15%: the frame split 12.7%
// (0.195: the sticky match of the expected block start ~3%, the data line's end found by indexOf ~1.5%, the
// data slice, offsets and the sink call; decodeSSE's per-frame layer is inlined there), the accumulator 2.0%
// (0.031), decodeSSE's checks, interning and batches 1.9% (0.030), the iterator's next() 0.7% (0.010); the
// generated validator 2.0% (0.030). In all ~1.53 JSON.parse per event (0.65x). Moved this session, each
// measured in one process against the previous commit (sources, interleaved CPU slices, 41 rounds): a block
// named like the previous event's spec type taken by one anchored match of `event: <type>` LF `data: `
// and handed out as that very string, so the name/type check compares pointers (the slice of the name and
// its comparison, which V8 runs in its runtime for a sliced string at ~50 ns, were 3% of the samples):
// per event 0.932x of the CPU, decode alone 0.921x; output_text.delta applied by named loads in the
// accumulator (0.737x of its cost) and the last type's handler reused (0.9x). Tried: lastIndexOf for the
// block start (the same speed as the sticky match in situ, 0.98-0.99x, but a miss searched backwards, so it
// needed bookkeeping to stay linear); a char-by-char comparison of the name (4 ns a character on Node 20,
// slower than V8's runtime call), String#startsWith (slower still: it cuts a substring).
//
// Instruction profile (issue 35's eighth session, 29 November 2026): callgrind over the dist on Node 20.20
// with --predictable (repeatable to 0.05%), per event as the difference between 80 and 20 runs of this
// stream in 16 KiB chunks, JIT code named from --perf-basic-prof. JSON.parse of each payload 9,087; the
// per-event pipeline 13,518 (0.67x by instructions, 0.58-0.62x in CPU time: our part runs at a lower IPC
// than the parser). The 4,400 that are not the parse: the frame split ~1,150 (the sticky match ~400, a
// quarter of it V8's write barrier for the match record that keeps the young chunk text; the data line's
// indexOf ~200; the rest inlined glue: takeBlock, decodeSSE's onFrame and parseEvent), the for await
// machinery ~500 (await, microtasks, promise then and fulfil, resumption), megamorphic `type` reads and
// the interning store ~270 (decodeSSE, the validator, the accumulator), UTF-8 decoding by TextDecoder
// ~250, the accumulator ~200, the validator ~150, late TurboFan compilations ~400 (warm-up; gone in long
// runs). Moved: each chunk's events pushed into an array made with object elements (an empty literal
// changed kind at its first push, so every push was a builtin call) and the block end's charCodeAt kept in
// bounds (one read past a chunk's end made V8 recompile it as a call): 13,518 -> 13,421 per event
// (0.993x), through batches() 13,270 -> 13,163 (0.992x); CPU time in one process (interleaved slices, 61
// rounds, load 1.1) 0.958x per event (0.607x -> 0.637x of JSON.parse) and 0.986x through batches() (0.671x
// -> 0.686x), within the noise at load 9. Tried and dropped: splitting a chunk's frames first and parsing the
// payloads after (+1.2% instructions; CPU 0.95-1.0x, within the noise at load 5-12); the iterator result
// from an array iterator, whose map lets Promise.resolve skip the `then` lookup (1.09x the cost); the
// block start by startsWith, indexOf or a char loop (4x, 1.7x, 5x the sticky match). What is left of ours
// is ~0.15 of a parse (split and decoding); the rest is V8's per-event floor for an async iterator.
//
// Instruction profile (issue 35's thirteenth session, 29 November 2026): callgrind over the dist with
// --predictable, per event as the difference between 40 and 10 runs after 100 warm ones, JIT code named from
// --perf-basic-prof. JSON.parse of each payload 8,288; the per-event pipeline 11,626 outside compilation and
// GC (0.71x by instructions; the eighth session's 13,518 included late compilations). Of the ~3,340 that are
// not the parse: the sticky match of the expected block start ~490 (the builtin 191, the matcher 200, the
// write barrier of its match record ~100), for await ~400 (await, microtasks, promise then and fulfil,
// resumption; V8's floor), our split and parseEvent ~470, UTF-8 decoding ~480 (TextDecoder's scan 209 and
// its copy ~270, which callgrind counts byte by byte: rep movsb), the validator ~150 and its result, the
// accumulator's delta ~240, megamorphic `type` loads ~150 (decodeSSE, validator, accumulator), the
// megamorphic store of the interned type ~106 (it saves two string comparisons of ~69 downstream), the
// name/type comparison of a parsed string with the constant ~69, the data line's indexOf ~200. Moved: the
// expected block start compared with the chunk's bytes as unrolled 8-byte words when the text is ASCII
// (7b5a198): 11,626 -> 11,371; the delta joined with + instead of a template (d08361f): -> 11,348 (0.73x by
// instructions). Tried and dropped: the words compared in a loop (getInt32: 11,590; a loop cost twice the
// unrolled form in a micro-benchmark, 386 vs 158 instructions a comparison). Not done: one JSON.parse for a chunk's
// payloads joined into an array (saves the ~560-instruction per-call overhead, but a peer's payloads that are
// not JSON one by one can join into a valid array of as many elements: `{"a":[1` and `2]},{"b":0}`).
// CPU time of the two cuts, the dist of 0f9ae4a against d08361f's in one process (head to head, 31 slices of
// 60 ms each, three rounds at load 6-8): the new pipeline 1.023-1.042x as fast as the old; per event against
// JSON.parse 0.565-0.575x (the old 0.545-0.565x). Below 0.6x at that load: our part runs at a lower IPC
// than the parser, so its share of the time is larger than its share of the instructions.
import { loadavg } from 'node:os';
import { createClient } from '@openresponses/client';
import type { StreamingEvent } from '@openresponses/types';
import { createParser } from 'eventsource-parser';
import { createAccumulator, decodeSSE, encodeEvent, SSE_DONE } from '@openresponses/events';
import { validateStreamingEvent } from '@openresponses/types/validate';
import { StreamingEventSchema, validate } from '@openresponses/zod';
import { decodeWithEventsourceParser } from './fixtures/eventsource-parser-decoder.js';
import { printStrictness } from './fixtures/sse-strictness.js';
import { headToHead, printHeadToHead } from './harness.js';
import { streamEvents } from './fixtures/payloads.js';

/**
 * Runs every case in alternating rounds, so load on the machine hits all of them alike, and reports
 * each case's median round (one slow round, a GC or a noisy neighbour, does not move the result).
 */
async function measureInterleaved(
  cases: Array<{ name: string; run: () => Promise<unknown> }>,
  eventsPerRun: number,
  rounds = 9,
  roundMs = 250,
) {
  const rates = cases.map(() => [] as number[]);
  for (const c of cases) for (let i = 0; i < 3; i++) await c.run();
  for (let round = 0; round < rounds; round++) {
    for (const [index, c] of cases.entries()) {
      const start = performance.now();
      let runs = 0;
      while (performance.now() - start < roundMs) {
        await c.run();
        runs++;
      }
      rates[index]!.push((runs * eventsPerRun) / ((performance.now() - start) / 1000));
    }
  }
  return cases.map((c, i) => ({ name: c.name, eventsPerSecond: median(rates[i]!), rates: rates[i]! }));
}

/** The SSE bytes of a stream, cut into `chunkBytes` pieces regardless of event boundaries (and UTF-8 sequences). */
function sseChunks(events: StreamingEvent[], chunkBytes: number) {
  const sse = new TextEncoder().encode(events.map(encodeEvent).join('') + SSE_DONE);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < sse.length; i += chunkBytes) chunks.push(sse.subarray(i, i + chunkBytes));
  const body = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });
  return { sse, chunks, body };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Ours and eventsource-parser + our strict layer, both through the same kind of iterator, on one workload. */
async function compareDecoders(name: string, events: StreamingEvent[], chunkBytes: number) {
  const { sse, body } = sseChunks(events, chunkBytes);
  const drain = async (stream: AsyncIterable<unknown>) => {
    let n = 0;
    for await (const _ of stream) n++;
    if (n !== events.length) throw new Error(`${name}: decoded ${n} of ${events.length} events`);
    return n;
  };
  const [ours, theirs] = await measureInterleaved(
    [
      { name: 'ours', run: () => drain(decodeSSE(body())) },
      { name: 'eventsource-parser', run: () => drain(decodeWithEventsourceParser(body())) },
    ],
    events.length,
  );
  const perRound = ours!.rates.map((rate, round) => rate / theirs!.rates[round]!);
  const megabytes = (rate: number) => ((rate * sse.length) / events.length / 1e6).toFixed(0);
  console.log(
    `${name.padEnd(44)} ${Math.round(ours!.eventsPerSecond).toLocaleString('en-US').padStart(10)} ${megabytes(ours!.eventsPerSecond).padStart(5)} MB/s  ${Math.round(theirs!.eventsPerSecond).toLocaleString('en-US').padStart(10)} ${megabytes(theirs!.eventsPerSecond).padStart(5)} MB/s  ${median(perRound).toFixed(2)}x (rounds ${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)})`,
  );
}

export async function run(): Promise<void> {
  const events = streamEvents(2000);
  const payloads = events.map((e) => JSON.stringify(e));
  // Network-sized chunks, cut regardless of event boundaries.
  const { sse, chunks, body } = sseChunks(events, 16 * 1024);

  const parseEach = () => payloads.map((p) => JSON.parse(p));
  // What the client and the stream checker run: the standalone validator.
  const pipeline = async () => {
    const accumulator = createAccumulator();
    for await (const event of decodeSSE(body())) {
      if (!validateStreamingEvent(event).success) throw new Error('invalid event');
      accumulator.push(event);
    }
    return accumulator.response;
  };
  // The same pipeline reading the decoder's batches: one promise per chunk instead of one per event.
  const batchedPipeline = async () => {
    const accumulator = createAccumulator();
    for await (const batch of decodeSSE(body()).batches())
      for (const event of batch) {
        if (!validateStreamingEvent(event).success) throw new Error('invalid event');
        accumulator.push(event);
      }
    return accumulator.response;
  };
  const results = await measureInterleaved(
    [
      { name: 'JSON.parse of each payload', run: async () => parseEach() },
      {
        name: 'eventsource-parser (decode only)',
        run: async () => {
          const out: unknown[] = [];
          const parser = createParser({ onEvent: (e) => e.data !== '[DONE]' && out.push(JSON.parse(e.data)) });
          const text = new TextDecoder();
          for (const chunk of chunks) parser.feed(text.decode(chunk, { stream: true }));
          return out;
        },
      },
      {
        name: 'decodeSSE (decode only)',
        run: async () => {
          let n = 0;
          for await (const _ of decodeSSE(body())) n++;
          return n;
        },
      },
      {
        name: 'decodeSSE + zod classic + accumulate',
        run: async () => {
          const accumulator = createAccumulator();
          for await (const event of decodeSSE(body())) {
            if (!validate(StreamingEventSchema, event).success) throw new Error('invalid event');
            accumulator.push(event);
          }
          return accumulator.response;
        },
      },
      { name: 'decodeSSE + validate + accumulate', run: pipeline },
      { name: 'decodeSSE batches + validate + acc.', run: batchedPipeline },
    ],
    events.length,
  );
  const base = results[0]!.eventsPerSecond;
  console.log(
    `\nStream of ${events.length} events (${sse.length.toLocaleString('en-US')} bytes of SSE), events per second, median of 9 alternating rounds; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const r of results)
    console.log(
      `${r.name.padEnd(40)} ${Math.round(r.eventsPerSecond).toLocaleString('en-US').padStart(12)} ${(r.eventsPerSecond / base).toFixed(2)}x`,
    );
  // The same ratio round by round (each round's cases ran back to back).
  const perRound = results.at(-2)!.rates.map((rate, round) => rate / results[0]!.rates[round]!);
  console.log(`pipeline / JSON.parse per round: ${perRound.map((r) => r.toFixed(2)).join(' ')}`);
  // The target's figure: the rounds above are wall-clock and swing 2x on a shared machine; this is each
  // side's share of this process's CPU time, in alternating slices.
  await printHeadToHead(
    { name: 'decodeSSE + validate + accumulate', run: pipeline },
    { name: 'JSON.parse of each payload', run: parseEach },
    { warmup: 20, batch: 2, sliceMs: 60 },
  );
  await printHeadToHead(
    { name: 'decodeSSE batches + validate + accumulate', run: batchedPipeline },
    { name: 'JSON.parse of each payload', run: parseEach },
    { warmup: 20, batch: 2, sliceMs: 60 },
  );
  console.log(
    'target (issue 35): the full pipeline (standalone validator) at >= 0.6x of JSON.parse alone, head to head',
  );
  // What the reference client runs for responses.stream(...).finalResponse(): the same decode, its policy's
  // validation and the accumulator, over a fetch answered in this process with the same chunks.
  const client = createClient({
    baseURL: 'http://127.0.0.1:1/v1',
    maxRetries: 0,
    fetch: async () => new Response(body(), { headers: { 'content-type': 'text/event-stream' } }),
  });
  await printHeadToHead(
    {
      name: 'client responses.stream().finalResponse()',
      run: async () => (await client.responses.stream({ model: 'm', input: 'x' })).finalResponse(),
    },
    { name: 'JSON.parse of each payload', run: parseEach },
    { warmup: 20, batch: 2, sliceMs: 60 },
  );
  // V8's part of the per-event pipeline: one already-resolved promise per event through for await (what
  // decodeSSE's iterator hands out), against a plain loop, with the same validate + accumulate body over
  // events parsed beforehand. The difference, in units of JSON.parse, is the floor of any per-event async
  // iterator on this Node.
  const parsed = parseEach() as StreamingEvent[];
  const resolvedOneByOne = (): AsyncIterator<StreamingEvent> => {
    let i = 0;
    return {
      next: () =>
        Promise.resolve(
          i < parsed.length ? { value: parsed[i++]!, done: false } : { value: undefined, done: true as const },
        ),
    };
  };
  const loop = {
    name: 'loop',
    run: () => {
      const accumulator = createAccumulator();
      for (const event of parsed) {
        if (!validateStreamingEvent(event).success) throw new Error('invalid event');
        accumulator.push(event);
      }
      return accumulator.response;
    },
  };
  const forAwait = {
    name: 'for await',
    run: async () => {
      const accumulator = createAccumulator();
      for await (const event of { [Symbol.asyncIterator]: resolvedOneByOne }) {
        if (!validateStreamingEvent(event).success) throw new Error('invalid event');
        accumulator.push(event);
      }
      return accumulator.response;
    },
  };
  // Two ratios, each head to head: the loop in JSON.parse units, then for await against the loop.
  const loopVsParse = await headToHead(loop, { name: 'JSON.parse', run: parseEach }, { warmup: 20, batch: 4 });
  const awaitVsLoop = await headToHead(forAwait, loop, { warmup: 20, batch: 4 });
  const awaitUnits = (1 / loopVsParse.ratio) * (1 / awaitVsLoop.ratio - 1);
  console.log(
    `V8's floor: one resolved promise per event through for await costs ${awaitUnits.toFixed(3)} of a JSON.parse per event (validate + accumulate alone: ${(1 / loopVsParse.ratio).toFixed(3)}; for await / loop ${awaitVsLoop.ratio.toFixed(2)}x, quartiles ${awaitVsLoop.low.toFixed(2)}-${awaitVsLoop.high.toFixed(2)})`,
  );

  console.log(
    '\nSSE decoder: ours vs eventsource-parser 3 + our strict layer (same kind of iterator, same strict checks), events/s and MB/s, median of 9 alternating rounds; ratio ours / eventsource-parser, median of the per-round ratios',
  );
  console.log(`${'workload'.padEnd(44)} ${'ours'.padStart(21)}  ${'eventsource-parser'.padStart(21)}  ours/e-p`);
  await compareDecoders('small deltas (2,000 events, 16 KiB chunks)', streamEvents(2000), 16 * 1024);
  await compareDecoders(
    'large events (64 deltas of 64 KiB, 16 KiB chunks)',
    streamEvents(72, (i) => `${'lorem ipsum '.repeat(5461)}${i}`),
    16 * 1024,
  );
  await compareDecoders(
    'split chunks (2,000 events, UTF-8 text, 61-byte chunks)',
    streamEvents(2000, (i) => `naïve 漢字 🙂 ${i} `),
    61,
  );
  console.log(`load average after: ${loadavg()[0]!.toFixed(1)}`);
  await printStrictness();
}
