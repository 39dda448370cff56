// Soak: the reference server as a child process (test/soak-server.ts) under mixed load for a while
// (default 10 minutes: `npm run soak -w @openresponses/server -- --minutes 10`), at bounded concurrency: clients that create
// and continue conversations (JSON, SSE read to the end, WebSocket turns), clients that abort streams
// midway, clients that never read their streams, and clients that send bad input.
//
// Its verdict depends on memory and error counts only, not on timing (the machine is shared): every 5 s it
// samples the child's RSS, heap and the store's own byte and entry counts, every 30 s also the heap after a
// full collection. The steady state begins once the store is at its bounds (90% of its bytes, or its most
// entries: from then on it evicts as much as it takes in). In it, RSS (its least-squares trend over the
// steady window's second half) and the collected heap (over the whole steady window) must not grow by more
// than 5% of their mean, and no request may end in an unexpected error. It exits 1 otherwise, or when the
// store never filled (no steady state to judge). Not part of `npm test`.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { healthzMs } from './child-server.js';
import type { SoakMessage, SoakRequest, SoakStats } from './soak-server.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'store-max-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
    // Far more than 64 MiB holds, so that the byte budget is the bound the run reaches.
    'store-max-entries': { type: 'string', default: '100000' },
  },
});
const durationMs = Number(values.minutes) * 60_000;
const concurrency = Number(values.concurrency);
// A 64 MiB store fills within the first minutes, so most of the run shows whether RSS stays flat at its bound.
const storeMaxBytes = Number(values['store-max-bytes']);
const storeMaxEntries = Number(values['store-max-entries']);
const KEY = 'soak-key-0123456789';
/** Largest trend over a window, as a share of the window's mean, that still counts as flat. */
const FLAT = 0.05;

const here = path.dirname(fileURLToPath(import.meta.url));
const child: ChildProcess = spawn(
  process.execPath,
  [
    '--expose-gc',
    '--import',
    'tsx',
    '--conditions=@openresponses/source',
    path.join(here, 'soak-server.ts'),
    KEY,
    String(storeMaxBytes),
    String(storeMaxEntries),
    '3000',
  ],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
let exited = false;
child.once('exit', () => {
  exited = true;
});
const replies: Array<(message: SoakMessage) => void> = [];
child.on('message', (message: SoakMessage) => replies.shift()?.(message));
const url = await new Promise<string>((resolve, reject) => {
  replies.push((message) => (message.type === 'listening' ? resolve(message.url) : reject(new Error('no url'))));
  child.once('exit', (code) => reject(new Error(`the soak server exited with ${code}`)));
});
/** The child's memory and store figures (after a full collection when `gc`). */
const stats = (gc: boolean) =>
  new Promise<SoakStats>((resolve) => {
    replies.push((message) => resolve(message as SoakStats));
    child.send({ type: 'stats', gc } satisfies SoakRequest);
  });
const server = { url };
const { hostname: host, port } = new URL(server.url);
const until = Date.now() + durationMs;
const counts = { json: 0, sse: 0, websocket: 0, aborted: 0, notReading: 0, badInput: 0 };
/** Unexpected errors by kind (the first few printed in full). */
const unexpected = new Map<string, number>();
let unexpectedCount = 0;
const fail = (kind: string, detail = '') => {
  if (unexpectedCount++ < 20) console.error(`unexpected: ${kind}${detail ? `: ${detail}` : ''}`);
  unexpected.set(kind, (unexpected.get(kind) ?? 0) + 1);
};
/** The answers bad input got, by status and error code (all expected: 4xx). */
const badInputAnswers = new Map<string, number>();

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
        fail('create: no answer', response.message);
        break;
      }
      const text = await response.text();
      if (response.status !== 200) {
        fail(`create: ${response.status}`, text.slice(0, 200));
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
        fail('websocket: no connection', error.message);
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
        fail(`websocket turn: ${String(last.type)}`, JSON.stringify(last).slice(0, 200));
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
  if (check.status !== 200) fail(`non-reading request: ${check.status}`, await check.text());
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
      if (response instanceof Error) fail('bad input: no answer', response.message);
      else {
        const text = await response.text();
        if (response.status < 400 || response.status >= 500) fail(`bad input: ${response.status}`, text);
        const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
        const answer = `${response.status} ${code}`;
        badInputAnswers.set(answer, (badInputAnswers.get(answer) ?? 0) + 1);
      }
      counts.badInput++;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Sample extends SoakStats {
  atS: number;
  healthzMs: number;
  /** Taken right after a full collection. */
  collected: boolean;
}
const samples: Sample[] = [];
const started = Date.now();
const sampler = (async () => {
  for (let tick = 0; Date.now() < until; tick++) {
    const ms = await healthzMs(server.url);
    if (!Number.isFinite(ms)) fail('/healthz did not answer');
    const collected = tick % 6 === 5;
    samples.push({ ...(await stats(collected)), atS: (Date.now() - started) / 1000, healthzMs: ms, collected });
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
})();

console.log(
  `soak: ${values.minutes} min against ${server.url} (store bounds ${mb(storeMaxBytes)} MB, ${storeMaxEntries} responses), ${concurrency} conversation clients, ${Math.max(1, concurrency / 4)} WebSocket, 2 aborting, 2 not reading, 1 bad-input`,
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
const alive = !exited;
child.disconnect();
await new Promise((resolve) => (exited ? resolve(undefined) : child.once('exit', resolve)));

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}
const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / Math.max(1, list.length);
/** The least-squares trend of `value` over the samples, from the first to the last, as a share of its mean. */
function trend(window: Sample[], value: (sample: Sample) => number): number {
  if (window.length < 3) return Number.NaN;
  const xs = window.map((sample) => sample.atS);
  const ys = window.map(value);
  const mx = mean(xs);
  const my = mean(ys);
  const slope =
    xs.reduce((sum, x, i) => sum + (x - mx) * (ys[i]! - my), 0) / xs.reduce((sum, x) => sum + (x - mx) ** 2, 0);
  return (slope * (xs.at(-1)! - xs[0]!)) / my;
}
const percent = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)}%`;

const seconds = (Date.now() - started) / 1000;
const total = counts.json + counts.sse + counts.websocket;
const requests = total + counts.aborted + counts.notReading + counts.badInput;
const fullAt = samples.findIndex((sample) => sample.storeFull);
const steady = fullAt < 0 ? [] : samples.slice(fullAt);
const secondHalf = steady.slice(Math.floor(steady.length / 2));
const collectedSteady = steady.filter((sample) => sample.collected);
const rssTrend = trend(secondHalf, (sample) => sample.rss);
const heapTrend = trend(collectedSteady, (sample) => sample.heapUsed);
// Where the memory is, after full collections: V8's committed heap, and what RSS holds outside it.
const committedTrend = trend(collectedSteady, (sample) => sample.heapTotal);
const outsideHeapTrend = trend(collectedSteady, (sample) => sample.rss - sample.heapTotal);
const first = samples[0]!;
const last = samples.at(-1)!;

console.log(`\nran ${seconds.toFixed(0)} s; server alive at the end: ${alive}`);
console.log(
  `requests: ${requests} (completed turns ${total}: ${counts.json} JSON, ${counts.sse} SSE, ${counts.websocket} WebSocket; aborted streams ${counts.aborted}; non-reading streams ${counts.notReading}; bad inputs ${counts.badInput})`,
);
console.log(
  `bad inputs answered: ${[...badInputAnswers].map(([answer, n]) => `${answer} x${n}`).join(', ') || 'none'}`,
);
console.log(
  `unexpected errors: ${unexpectedCount}${unexpected.size ? ` (${[...unexpected].map(([kind, n]) => `${kind} x${n}`).join(', ')})` : ''}`,
);
console.log(
  `store: ${mb(last.storeBytes)} MB in ${last.storeEntries} responses at the end; reached its bounds (90% of ${mb(storeMaxBytes)} MB or ${storeMaxEntries} responses) ${fullAt < 0 ? 'never' : `at ${samples[fullAt]!.atS.toFixed(0)} s`}`,
);
console.log(
  `RSS: ${mb(first.rss)} MB at start, ${steady.length ? mb(steady[0]!.rss) : '-'} MB when the store was full, mean ${mb(mean(secondHalf.map((sample) => sample.rss)))} MB over the steady window's second half, ${mb(last.rss)} MB at the end, max ${mb(Math.max(...samples.map((sample) => sample.rss)))} MB; trend over the second half ${percent(rssTrend)}`,
);
console.log(
  `heap used after a full GC: ${collectedSteady.length ? `${mb(collectedSteady[0]!.heapUsed)} MB when the store was full, ${mb(collectedSteady.at(-1)!.heapUsed)} MB at the end; trend over the steady window ${percent(heapTrend)}` : 'no steady samples'} (store ${mb(last.storeBytes)} MB, external ${mb(last.external)} MB, array buffers ${mb(last.arrayBuffers)} MB at the end)`,
);
console.log(
  `trends over the steady window, after full GCs: RSS ${percent(trend(collectedSteady, (sample) => sample.rss))}, V8 heap committed ${percent(committedTrend)}, RSS outside the V8 heap ${percent(outsideHeapTrend)}, heap used ${percent(heapTrend)}`,
);
const spaces = (sample: Sample) =>
  Object.entries(sample.spaces)
    .filter(([, bytes]) => bytes >= 1024 * 1024)
    .map(([name, bytes]) => `${name.replace(/_space$/, '')} ${mb(bytes)}`)
    .join(', ');
if (collectedSteady.length)
  console.log(
    `V8 heap committed after a full GC (MB), when the store was full: ${spaces(collectedSteady[0]!)}; at the end: ${spaces(collectedSteady.at(-1)!)}`,
  );
console.log('every 30 s, after a full GC (s: RSS / heap total / heap used / store, MB):');
console.log(
  samples
    .filter((sample) => sample.collected)
    .map(
      (sample) =>
        `${sample.atS.toFixed(0)}: ${mb(sample.rss)}/${mb(sample.heapTotal)}/${mb(sample.heapUsed)}/${mb(sample.storeBytes)}`,
    )
    .join('  '),
);
console.log(
  `/healthz (timing, not judged): median ${[...samples.map((sample) => sample.healthzMs)].sort((a, b) => a - b)[Math.floor(samples.length / 2)]?.toFixed(1)} ms, slowest ${Math.max(...samples.map((sample) => sample.healthzMs)).toFixed(1)} ms over ${samples.length} samples`,
);
const verdicts = [
  [alive, 'the server died'],
  [unexpectedCount === 0, 'unexpected errors'],
  [fullAt >= 0 && steady.length >= 6, 'the store never reached its bounds: no steady state to judge (run longer)'],
  [rssTrend <= FLAT, `RSS grows in the steady state (${percent(rssTrend)}, limit +${FLAT * 100}%)`],
  [heapTrend <= FLAT, `the collected heap grows in the steady state (${percent(heapTrend)}, limit +${FLAT * 100}%)`],
] as const;
const failed = verdicts.filter(([ok]) => !ok).map(([, why]) => why);
console.log(
  failed.length ? `FAILED: ${failed.join('; ')}` : 'passed: flat memory in the steady state, no unexpected errors',
);
process.exit(failed.length ? 1 : 0);
