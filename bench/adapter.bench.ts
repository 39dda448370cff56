// Our fetch→node:http adapter (toNodeListener) side by side with @hono/node-server's getRequestListener
// and srvx's toNodeHandler, each serving the same reference server (embedded model, store: false) in its
// own process: a non-streaming JSON POST and an SSE stream. toNodeListener is measured twice: serving the
// service directly (what startServer does: no web Request/Response) and serving the same fetch-style
// handler the other two get. Requests/s, p50/p99 and the server process's CPU per request (less
// sensitive than requests/s to what else runs on a shared machine), 5 alternating rounds, median round.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { load, median, rps, type LoadResult } from './fixtures/load.js';

const ADAPTERS = [
  ['service', 'toNodeListener(service), the Node entry'],
  ['fetch', 'toNodeListener(service.fetch)'],
  ['hono', '@hono/node-server getRequestListener(fetch)'],
  ['srvx', 'srvx toNodeHandler(fetch)'],
] as const;

interface AdapterServer {
  url: string;
  /** The server process's CPU time so far, µs. */
  cpu(): Promise<number>;
  stop(): void;
}

async function startAdapter(name: string): Promise<AdapterServer> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./fixtures/adapter-server.ts', import.meta.url)), name],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const port = (await lines.next()).value as string;
  return {
    url: `http://127.0.0.1:${port}/v1/responses`,
    cpu: async () => {
      child.stdin!.write('cpu\n');
      return Number((await lines.next()).value);
    },
    stop: () => child.stdin!.end(),
  };
}

interface Round extends LoadResult {
  cpuPerRequest: number;
}

async function measured(server: AdapterServer, body: string, concurrency: number, seconds: number): Promise<Round> {
  const before = await server.cpu();
  const result = await load(server.url, body, concurrency, seconds);
  return Object.assign(result, { cpuPerRequest: ((await server.cpu()) - before) / result.requests });
}

export async function run(): Promise<void> {
  const servers = await Promise.all(ADAPTERS.map(([name]) => startAdapter(name)));
  const workloads = [
    ['Non-streaming (JSON)', { stream: false }],
    ['Streaming (SSE)', { stream: true }],
  ] as const;
  const concurrency = 16;
  for (const [title, { stream }] of workloads) {
    const body = JSON.stringify({
      model: 'openresponses-deterministic',
      input: 'Hello! My name is Ada. What can you do?',
      store: false,
      stream,
    });
    // Every adapter answers the same bytes in shape (a completed response or a whole event stream).
    for (const server of servers) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const text = await response.text();
      if (response.status !== 200 || !text.includes(stream ? 'event: response.completed' : '"status":"completed"'))
        throw new Error(`${server.url} answered ${response.status}: ${text.slice(0, 200)}`);
    }
    for (const server of servers) await load(server.url, body, concurrency, 1);
    const rounds: Round[][] = servers.map(() => []);
    for (let round = 0; round < 5; round++)
      for (const [index, server] of servers.entries())
        rounds[index]!.push(await measured(server, body, concurrency, 2));
    const baseline = median(rounds[0]!, rps);
    console.log(
      `\n${title}, ${concurrency} concurrent keep-alive connections, 5 alternating rounds of 2 s; median round`,
    );
    console.log(
      `${'adapter'.padEnd(46)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'CPU µs/req'.padStart(11)} ${'vs Node entry'.padStart(13)}`,
    );
    for (const [index, [, label]] of ADAPTERS.entries()) {
      const r = median(rounds[index]!, rps);
      const cpu = median(rounds[index]!, (x) => x.cpuPerRequest).cpuPerRequest;
      console.log(
        `${label.padEnd(46)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(8)} ${r.p50.toFixed(2).padStart(7)} ${r.p99.toFixed(2).padStart(7)} ${cpu.toFixed(0).padStart(11)} ${`${(rps(r) / rps(baseline)).toFixed(2)}x`.padStart(13)}`,
      );
    }
  }
  for (const server of servers) server.stop();
}
