// The reference server as a real child process (the CLI on sources), for tests and scripts that need to
// measure it from outside: its resident memory, whether it survives, how fast /healthz answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux that Node supports. */
const CLOCK_TICKS = 100;
const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/node/cli.ts');

export interface ChildServer {
  url: string;
  child: ChildProcess;
  /** Everything the child printed. */
  output(): string;
  /** Resident set size of the child in bytes (from /proc). */
  rss(): number;
  /** CPU time the child has used so far, user and system, in ms (from /proc; 10 ms steps at the usual 100 ticks a second). */
  cpuMs(): number;
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
    cpuMs: () => {
      // Fields 14 and 15 (utime, stime) in clock ticks, counted after the parenthesised command name.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
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

/**
 * Probes a server's health and memory every `everyMs` until stopped: the slowest /healthz, the most CPU time the
 * server spent while one /healthz waited for its answer, how many went unanswered (within `timeoutMs`), and the
 * largest RSS seen. The CPU time is the measure of a stall that holds on a loaded machine: a blocked event loop
 * spends the whole wait computing, while a healthy server on a busy machine waits its turn for a core (its
 * /healthz slower in wall-clock time, its CPU time the same).
 */
export function watch(server: ChildServer, everyMs = 200, timeoutMs = 30_000) {
  let slowest = 0;
  let busiestCpu = 0;
  let unanswered = 0;
  let peakRss = 0;
  let probes = 0;
  let running = true;
  const cpuMs = () => (server.alive() ? server.cpuMs() : 0);
  const loop = (async () => {
    while (running) {
      const cpuBefore = cpuMs();
      const ms = await healthzMs(server.url, timeoutMs);
      const cpu = cpuMs() - cpuBefore;
      probes++;
      if (ms === Infinity) unanswered++;
      else if (ms > slowest) slowest = ms;
      if (cpu > busiestCpu) busiestCpu = cpu;
      if (server.alive()) peakRss = Math.max(peakRss, server.rss());
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    /** Wall-clock time of the slowest answered /healthz (reported, not judged: it grows with the machine's load). */
    get slowestHealthzMs() {
      return slowest;
    },
    /** The most CPU time (ms) the server spent while one /healthz waited. */
    get busiestHealthzCpuMs() {
      return busiestCpu;
    },
    /** Probes that got no answer within the timeout. */
    get unansweredHealthz() {
      return unanswered;
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
      busiestCpu = 0;
      unanswered = 0;
      peakRss = 0;
      probes = 0;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
