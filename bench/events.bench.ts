// Streaming pipeline: decode + validate + accumulate a 2,000-event stream, side by side with JSON.parse
// of the same payloads and with eventsource-parser alone for the decode step (events per second).
import { createParser } from 'eventsource-parser';
import { createAccumulator, decodeSSE, encodeEvent, SSE_DONE } from '@openresponses/events';
import { StreamingEventSchema, validate } from '@openresponses/zod';
import { streamEvents } from './fixtures/payloads.js';

async function measureAsync(name: string, eventsPerRun: number, run: () => Promise<unknown>, seconds = 1.5) {
  for (let i = 0; i < 3; i++) await run();
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    await run();
    runs++;
  }
  return { name, eventsPerSecond: (runs * eventsPerRun) / ((performance.now() - start) / 1000) };
}

export async function run(): Promise<void> {
  const events = streamEvents(2000);
  const payloads = events.map((e) => JSON.stringify(e));
  const sse = new TextEncoder().encode(events.map(encodeEvent).join('') + SSE_DONE);
  // Network-sized chunks, cut regardless of event boundaries.
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < sse.length; i += 16 * 1024) chunks.push(sse.subarray(i, i + 16 * 1024));
  const body = () => new ReadableStream<Uint8Array>({ start(c) { for (const chunk of chunks) c.enqueue(chunk); c.close(); } });

  const results = [
    await measureAsync('JSON.parse of each payload', events.length, async () => payloads.map((p) => JSON.parse(p))),
    await measureAsync('eventsource-parser (decode only)', events.length, async () => {
      const out: unknown[] = [];
      const parser = createParser({ onEvent: (e) => e.data !== '[DONE]' && out.push(JSON.parse(e.data)) });
      const text = new TextDecoder();
      for (const chunk of chunks) parser.feed(text.decode(chunk, { stream: true }));
      return out;
    }),
    await measureAsync('decodeSSE (decode only)', events.length, async () => {
      let n = 0;
      for await (const _ of decodeSSE(body())) n++;
      return n;
    }),
    await measureAsync('decodeSSE + validate + accumulate', events.length, async () => {
      const accumulator = createAccumulator();
      for await (const event of decodeSSE(body())) {
        if (!validate(StreamingEventSchema, event).success) throw new Error('invalid event');
        accumulator.push(event);
      }
      return accumulator.response;
    }),
  ];
  const base = results[0]!.eventsPerSecond;
  console.log(`\nStream of ${events.length} events (${sse.length.toLocaleString('en-US')} bytes of SSE), events per second`);
  for (const r of results) console.log(`${r.name.padEnd(40)} ${Math.round(r.eventsPerSecond).toLocaleString('en-US').padStart(12)} ${(r.eventsPerSecond / base).toFixed(2)}x`);
  console.log('target: the full pipeline at >= 0.33x of JSON.parse alone (within 3x)');
}
