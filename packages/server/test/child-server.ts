// The reference server as a real child process (the CLI on sources), for tests and scripts that need to
// measure it from outside: its resident memory, whether it survives, how fast /healthz answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/node/cli.ts');

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the child printed. */
  output(): string;
  /** Resident set size of the child in bytes (from /proc). */
  rss(): number;
  /** Whether the process is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startChildServer(args: string[], env: Record<string, string> = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@openresponses/source', cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/responses/.exec(output);
      if (found && output.includes('Try: curl')) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
  // Keep draining its output so a chatty child never blocks on a full pipe.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-100_000);
  };
  child.stdout!.removeAllListeners('data').on('data', keep);
  child.stderr!.removeAllListeners('data').on('data', keep);
  return {
    url,
    child,
    output: () => output,
    rss: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
    },
    alive: () => !exited && child.exitCode === null,
    stop: async () => {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** Time for one `GET /healthz` in ms (Infinity when it fails or takes longer than `timeoutMs`). */
export async function healthzMs(url: string, timeoutMs = 5000): Promise<number> {
  const start = performance.now();
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.text();
    return response.status === 200 ? performance.now() - start : Infinity;
  } catch {
    return Infinity;
  }
}

/** Probes a server's health and memory every `everyMs` until stopped: the slowest /healthz and the largest RSS seen. */
export function watch(server: ChildServer, everyMs = 200) {
  let slowest = 0;
  let peakRss = 0;
  let probes = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const ms = await healthzMs(server.url);
      probes++;
      if (ms > slowest) slowest = ms;
      if (server.alive()) peakRss = Math.max(peakRss, server.rss());
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    get slowestHealthzMs() {
      return slowest;
    },
    get peakRss() {
      return peakRss;
    },
    get probes() {
      return probes;
    },
    /** Resets the maxima (per test). */
    reset() {
      slowest = 0;
      peakRss = 0;
      probes = 0;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
