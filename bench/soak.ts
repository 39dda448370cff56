// Soak: the reference server as a child process under mixed load for a while (default 10 minutes:
// `npx tsx bench/soak.ts --minutes 10`), at bounded concurrency: clients that create and continue
// conversations (JSON, SSE read to the end, WebSocket turns), clients that abort streams midway, clients
// that never read their streams, and clients that send bad input. It samples the child's RSS and
// /healthz latency every 5 s and prints the figures; it fails (exit 1) on any unexpected error or if
// RSS in the last fifth of the run grew more than 25% over the second fifth (after warm-up).
// Not part of `npm test`.
import net from 'node:net';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { healthzMs, startChildServer } from '../packages/server/test/child-server.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, concurrency: { type: 'string', default: '8' } },
});
const durationMs = Number(values.minutes) * 60_000;
const concurrency = Number(values.concurrency);
const KEY = 'soak-key-0123456789';

// A 64 MiB store: it fills within the first minutes, so what follows shows whether RSS stays flat at its bound.
const server = await startChildServer(
  ['--port', '0', '--api-key', KEY, '--store-max-bytes', String(64 * 1024 * 1024)],
  {
    OPENRESPONSES_STALLED_WRITE_MS: '3000',
  },
);
const { hostname: host, port } = new URL(server.url);
const until = Date.now() + durationMs;
const counts = { json: 0, sse: 0, websocket: 0, aborted: 0, notReading: 0, badInput: 0 };
const unexpected: string[] = [];
const fail = (what: string) => {
  if (unexpected.length < 20) console.error(`unexpected: ${what}`);
  unexpected.push(what);
};

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });

/** Creates a conversation and continues it a few turns, as JSON and as SSE read to the end. */
async function conversationClient() {
  while (Date.now() < until) {
    let previous: string | undefined;
    for (let turn = 0; turn < 4; turn++) {
      const streaming = turn % 2 === 1;
      const body: Record<string, unknown> = { input: `turn ${turn}: my name is Ada [think]`, stream: streaming };
      if (previous) body.previous_response_id = previous;
      const response = await post(body).catch((error: Error) => error);
      if (response instanceof Error) {
        fail(`create: ${response.message}`);
        break;
      }
      const text = await response.text();
      if (response.status !== 200) {
        fail(`create ${response.status}: ${text.slice(0, 200)}`);
        break;
      }
      if (streaming) {
        counts.sse++;
        if (!text.trimEnd().endsWith('data: [DONE]')) fail('an SSE stream ended without [DONE]');
        previous = /"type":"response\.completed".*?"id":"(resp_[^"]+)"/.exec(text)?.[1];
      } else {
        counts.json++;
        previous = (JSON.parse(text) as { id: string }).id;
      }
    }
  }
}

/** Several WebSocket turns per connection, continuing on the same socket. */
async function websocketClient() {
  while (Date.now() < until) {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    const opened = await new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('error', (error) => {
        fail(`websocket: ${error.message}`);
        resolve(false);
      });
    });
    if (!opened) continue;
    let previous: string | undefined;
    for (let turn = 0; turn < 5 && Date.now() < until; turn++) {
      const ended = new Promise<Record<string, unknown>>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const message = JSON.parse(String(data)) as Record<string, unknown>;
          if (
            ['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(String(message.type))
          ) {
            socket.off('message', onMessage);
            resolve(message);
          }
        };
        socket.on('message', onMessage);
      });
      socket.send(
        JSON.stringify({
          type: 'response.create',
          input: `websocket turn ${turn}`,
          store: turn % 2 === 0,
          ...(previous ? { previous_response_id: previous } : {}),
        }),
      );
      const last = await ended;
      if (last.type !== 'response.completed') {
        fail(`websocket turn ended with ${JSON.stringify(last).slice(0, 200)}`);
        break;
      }
      counts.websocket++;
      previous = (last.response as { id: string }).id;
    }
    socket.close();
  }
}

/** Starts slow streams and goes away midway. */
async function abortingClient() {
  while (Date.now() < until) {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50 + Math.random() * 300);
    try {
      const response = await post({ input: 'tell me slowly [slow] [long]', stream: true }, controller.signal);
      await response.text();
    } catch {
      // The abort, as intended.
    }
    counts.aborted++;
  }
}

/** Posts streams with large answers and never reads them, holding each socket for a while. */
async function notReadingClient() {
  const body = JSON.stringify({
    input: [
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'zzzzzzzzzzzzzzzzzzz '.repeat(50_000) },
    ],
    stream: true,
  });
  // The same request read normally is a 200 stream: the non-reading clients hold real answers, not errors.
  const check = await post(body);
  if (check.status !== 200) fail(`the non-reading clients' request answers ${check.status}: ${await check.text()}`);
  else await check.text();
  while (Date.now() < until) {
    const socket = net.connect(Number(port), host);
    socket.on('error', () => {});
    socket.write(
      `POST /v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
    await new Promise((resolve) => setTimeout(resolve, 6000));
    socket.destroy();
    counts.notReading++;
  }
}

/** Bad input of every kind: each must be a 4xx. */
async function badInputClient() {
  const bodies = [
    '{"input": "unterminated',
    JSON.stringify({ input: 'hi', temperature: 'hot' }),
    JSON.stringify({ input: [{ type: 'compaction', encrypted_content: 'or1.!!!.@@@' }] }),
    `{"input":"hi","tools":[{"type":"function","name":"d","parameters":${'['.repeat(5000)}${']'.repeat(5000)}}]}`,
    JSON.stringify({ input: 'hi', previous_response_id: 'resp_nope' }),
  ];
  while (Date.now() < until) {
    for (const body of bodies) {
      const response = await post(body).catch((error: Error) => error);
      if (response instanceof Error) fail(`bad input: ${response.message}`);
      else {
        const text = await response.text();
        if (response.status < 400 || response.status >= 500) fail(`bad input answered ${response.status}: ${text}`);
      }
      counts.badInput++;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const samples: Array<{ atS: number; rssMb: number; healthzMs: number }> = [];
const started = Date.now();
const sampler = (async () => {
  while (Date.now() < until) {
    const ms = await healthzMs(server.url);
    if (!Number.isFinite(ms)) fail('/healthz did not answer');
    samples.push({ atS: Math.round((Date.now() - started) / 1000), rssMb: server.rss() / 1024 / 1024, healthzMs: ms });
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
})();

console.log(
  `soak: ${values.minutes} min against ${server.url}, ${concurrency} conversation clients, ${Math.max(1, concurrency / 4)} WebSocket, 2 aborting, 2 not reading, 1 bad-input`,
);
await Promise.all([
  ...Array.from({ length: concurrency }, conversationClient),
  ...Array.from({ length: Math.max(1, concurrency / 4) }, websocketClient),
  abortingClient(),
  abortingClient(),
  notReadingClient(),
  notReadingClient(),
  badInputClient(),
  sampler,
]);
const alive = server.alive();
await server.stop();

const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / Math.max(1, list.length);
const fifth = (k: number) =>
  samples.slice(Math.floor((samples.length * k) / 5), Math.floor((samples.length * (k + 1)) / 5));
const early = mean(fifth(1).map((s) => s.rssMb));
const late = mean(fifth(4).map((s) => s.rssMb));
const seconds = (Date.now() - started) / 1000;
const total = counts.json + counts.sse + counts.websocket;
console.log(`\nran ${seconds.toFixed(0)} s; server alive at the end: ${alive}`);
console.log(
  `completed turns: ${total} (${counts.json} JSON, ${counts.sse} SSE, ${counts.websocket} WebSocket; ${(total / seconds).toFixed(1)}/s); aborted streams: ${counts.aborted}; non-reading streams: ${counts.notReading}; bad inputs: ${counts.badInput}`,
);
console.log(
  `RSS: ${samples[0]?.rssMb.toFixed(0)} MB at start, mean ${early.toFixed(0)} MB in the second fifth, ${late.toFixed(0)} MB in the last fifth, max ${Math.max(...samples.map((s) => s.rssMb)).toFixed(0)} MB`,
);
console.log(
  `/healthz: median ${[...samples.map((s) => s.healthzMs)].sort((a, b) => a - b)[Math.floor(samples.length / 2)]?.toFixed(1)} ms, slowest ${Math.max(...samples.map((s) => s.healthzMs)).toFixed(1)} ms over ${samples.length} samples`,
);
console.log(`unexpected errors: ${unexpected.length}`);
const grew = late > early * 1.25;
if (grew) console.log('RSS grew by more than 25% between the second and the last fifth');
process.exit(unexpected.length === 0 && alive && !grew ? 0 : 1);
