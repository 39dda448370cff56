// Streaming pipeline: decode + validate + accumulate a 2,000-event stream, side by side with JSON.parse
// of the same payloads and with eventsource-parser alone for the decode step (events per second).
import { createParser } from 'eventsource-parser';
import { createAccumulator, decodeSSE, encodeEvent, SSE_DONE } from '@openresponses/events';
import { StreamingEventSchema, validate } from '@openresponses/zod';
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
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return cases.map((c, i) => ({ name: c.name, eventsPerSecond: median(rates[i]!), rates: rates[i]! }));
}

export async function run(): Promise<void> {
  const events = streamEvents(2000);
  const payloads = events.map((e) => JSON.stringify(e));
  const sse = new TextEncoder().encode(events.map(encodeEvent).join('') + SSE_DONE);
  // Network-sized chunks, cut regardless of event boundaries.
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < sse.length; i += 16 * 1024) chunks.push(sse.subarray(i, i + 16 * 1024));
  const body = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });

  const results = await measureInterleaved(
    [
      { name: 'JSON.parse of each payload', run: async () => payloads.map((p) => JSON.parse(p)) },
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
        name: 'decodeSSE + validate + accumulate',
        run: async () => {
          const accumulator = createAccumulator();
          for await (const event of decodeSSE(body())) {
            if (!validate(StreamingEventSchema, event).success) throw new Error('invalid event');
            accumulator.push(event);
          }
          return accumulator.response;
        },
      },
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
  const pipeline = results.at(-1)!;
  const perRound = pipeline.rates.map((rate, round) => rate / results[0]!.rates[round]!);
  console.log(`pipeline / JSON.parse per round: ${perRound.map((r) => r.toFixed(2)).join(' ')}`);
  console.log('target: the full pipeline at >= 0.33x of JSON.parse alone (within 3x)');
}
