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
import type { StreamingEvent } from '@openresponses/types';
import { createParser } from 'eventsource-parser';
import { createAccumulator, decodeSSE, encodeEvent, SSE_DONE } from '@openresponses/events';
import { validateStreamingEvent } from '@openresponses/types/validate';
import { StreamingEventSchema, validate } from '@openresponses/zod';
import { decodeWithEventsourceParser } from './fixtures/eventsource-parser-decoder.js';
import { printStrictness } from './fixtures/sse-strictness.js';
import { printHeadToHead } from './harness.js';
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
    `\nStream of ${events.length} events (${sse.length.toLocaleString('en-US')} bytes of SSE), events per second, median of 9 alternating rounds`,
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
  await printStrictness();
}
