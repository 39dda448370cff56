// Probes of a running server from outside: how fast /healthz answers, and how much CPU time the server spent
// meanwhile (the measure of a stall that holds on a loaded machine), with its peak RSS. The hostile tests and
// the hostile contract suite judge a server by them. The monitor probes from a worker thread of its own, so the
// test process's own work (a hostile upstream writing its flood, the test runner) cannot leave an answer unread
// while the server's CPU time counts as its stall. The worker runs `probeHealthz`, `usageFrom` and `probeLoop`
// from their source text (`eval`), so the same module serves the built package and its sources (vitest, tsx)
// without a file to resolve (Node 20 runs no .ts worker entry), as node/otlp-post-worker.ts does.
import { readFileSync } from 'node:fs';
import { type MessagePort, Worker } from 'node:worker_threads';

/** A server probed from outside: its URL, and its process (Linux: its memory and CPU time read from /proc). */
export interface ProbedServer {
  /** The server's origin (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The id of the server's process. */
  readonly pid: number;
}

/** A process's resident memory and the CPU time it has used, from /proc. */
export interface ProcessUsage {
  /** Resident set size, in bytes. */
  rssBytes: number;
  /** CPU time used so far, user and system, in ms (10 ms steps at the usual 100 ticks a second). */
  cpuMs: number;
}

/** What a monitor saw since it started or was last reset. */
export interface HealthFigures {
  /** Wall-clock time of the slowest answered /healthz (reported, not judged: it grows with the machine's load). */
  slowestHealthzMs: number;
  /** The most CPU time (ms) the server spent while one /healthz waited. */
  busiestHealthzCpuMs: number;
  /** Probes that got no answer within the timeout (or could not be made: the probing thread failed). */
  unansweredHealthz: number;
  /** Why the last unanswered probe got no answer (its status, or its error and cause), if one did not. */
  lastFailure: string | undefined;
  /** The largest RSS seen, in bytes. */
  peakRss: number;
  /** Probes made. */
  probes: number;
}

/** A running monitor (see `watch`). */
export interface HealthMonitor {
  /** The figures of every probe that ended since the last reset, once the probe in flight (if any) has ended. */
  figures(): Promise<HealthFigures>;
  /** Resets the figures (per test). */
  reset(): void;
  /** Stops probing and ends the probing thread. */
  stop(): Promise<void>;
}

/** Time for one `GET /healthz` in ms (Infinity when it fails or takes longer than `timeoutMs`). */
export async function healthzMs(url: string, timeoutMs = 5000): Promise<number> {
  return (await probeHealthz(url, timeoutMs)).ms;
}

/** The process's resident memory and CPU time (Linux: /proc), or undefined once it has exited. */
export function processUsage(pid: number): ProcessUsage | undefined {
  return usageFrom(readFileSync, pid);
}

/**
 * `processUsage` given the file reader (the worker runs it from its source text, without this module's imports).
 * A process that has exited (gone, or a zombie not yet reaped) has none.
 */
function usageFrom(read: (path: string, encoding: 'utf8') => string, pid: number): ProcessUsage | undefined {
  /** USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux that Node supports. */
  const CLOCK_TICKS = 100;
  try {
    // After the parenthesised command name: the state (field 3), then utime and stime (14 and 15) in clock ticks.
    const fields = read(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    const rss = /VmRSS:\s+(\d+) kB/.exec(read(`/proc/${pid}/status`, 'utf8'));
    return {
      rssBytes: rss ? Number(rss[1]) * 1024 : 0,
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS,
    };
  } catch {
    return undefined;
  }
}

/**
 * One `GET /healthz`: its time in ms, or Infinity and why (the status, or the error and its cause). A request
 * whose connection failed before any answer is sent once more, within the same time: a pooled keep-alive
 * socket can close under it whatever the server does, and a probe judges the server, not the client's pool.
 * Self-contained: the worker runs it from its source text.
 */
async function probeHealthz(url: string, timeoutMs: number): Promise<{ ms: number; failure?: string }> {
  /** Error codes of a connection that failed under a request before any answer (a reused keep-alive socket the server closed). */
  const connectionFailures = ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED'];
  const start = performance.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const failures: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const response = await fetch(`${url}/healthz`, { signal });
      await response.text();
      if (response.status === 200) return { ms: performance.now() - start };
      failures.push(`HTTP ${response.status}`);
      break;
    } catch (error) {
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      const code = typeof cause?.code === 'string' ? cause.code : undefined;
      const said = cause ? ` (${code ? `${code}: ` : ''}${String(cause.message ?? cause)})` : '';
      failures.push(`${(error as Error).message}${said} after ${Math.round(performance.now() - start)} ms`);
      if (signal.aborted || !code || !connectionFailures.includes(code)) break;
    }
  }
  return { ms: Infinity, failure: failures.join(', then ') };
}

/** What the probing thread is started with. */
interface ProbeOrders {
  url: string;
  pid: number;
  everyMs: number;
  timeoutMs: number;
}

/** One probe's result, posted by the probing thread; or its answer to a `figures` call (`settled`). */
type ProbeMessage = { ms: number; failure?: string; cpuMs: number; rssBytes: number } | { settled: number };

/**
 * The probing thread's loop, from its source text: a probe every `everyMs`, the server's CPU time read before it
 * and after its answer, each result posted; a request for the figures (a number) answered once the probe in
 * flight has ended, so every probe made before it has been posted first.
 */
function probeLoop(
  { url, pid, everyMs, timeoutMs }: ProbeOrders,
  port: MessagePort,
  probe: typeof probeHealthz,
  usage: (pid: number) => ProcessUsage | undefined,
): void {
  let inFlight: Promise<unknown> = Promise.resolve();
  port.on('message', async (request: number) => {
    await inFlight;
    port.postMessage({ settled: request } satisfies ProbeMessage);
  });
  const next = async () => {
    const before = usage(pid);
    const { ms, failure } = await probe(url, timeoutMs);
    const after = usage(pid);
    const cpuMs = before && after ? after.cpuMs - before.cpuMs : 0;
    port.postMessage({ ms, failure, cpuMs, rssBytes: after?.rssBytes ?? 0 } satisfies ProbeMessage);
  };
  const loop = () => {
    inFlight = next();
    void inFlight.then(() => setTimeout(loop, everyMs));
  };
  loop();
}

/**
 * The probing thread's program, from the source text of the functions above. esbuild with keepNames (tsx,
 * vitest) wraps the named functions of that text in `__name` calls: a no-op stands in.
 */
const PROBE_SOURCE = `const __name = (target) => target;
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const usageFrom = ${usageFrom.toString()};
(${probeLoop.toString()})(workerData, parentPort, ${probeHealthz.toString()}, (pid) => usageFrom(readFileSync, pid));`;

/**
 * Probes a server's health and memory every `everyMs` until stopped, from a thread of its own: the slowest
 * /healthz, the most CPU time the server spent while one /healthz waited for its answer, how many went
 * unanswered (within `timeoutMs`), and the largest RSS seen. The CPU time is the measure of a stall that holds
 * on a loaded machine: a blocked event loop spends the whole wait computing, while a healthy server on a busy
 * machine waits its turn for a core (its /healthz slower in wall-clock time, its CPU time the same). The thread
 * holds no process open; `stop` ends it. Should it fail, its failure is counted as an unanswered probe.
 */
export function watch(server: ProbedServer, everyMs = 200, timeoutMs = 30_000): HealthMonitor {
  let figures = fresh();
  let requests = 0;
  const waiting = new Map<number, () => void>();
  let ended = false;
  const orders: ProbeOrders = { url: server.url, pid: server.pid, everyMs, timeoutMs };
  // None of this process's Node options: they may load code (--import, a test runner's hooks) a probe has no use for.
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: orders, execArgv: [], stdout: true, stderr: true });
  worker.unref();
  worker.on('message', (message: ProbeMessage) => {
    if ('settled' in message) {
      waiting.get(message.settled)?.();
      waiting.delete(message.settled);
      return;
    }
    figures.probes++;
    if (message.ms === Infinity) {
      figures.unansweredHealthz++;
      figures.lastFailure = message.failure;
    } else if (message.ms > figures.slowestHealthzMs) figures.slowestHealthzMs = message.ms;
    figures.busiestHealthzCpuMs = Math.max(figures.busiestHealthzCpuMs, message.cpuMs);
    figures.peakRss = Math.max(figures.peakRss, message.rssBytes);
  });
  const end = (failure?: string) => {
    if (failure !== undefined && !ended) {
      figures.unansweredHealthz++;
      figures.lastFailure = failure;
    }
    ended = true;
    for (const settle of waiting.values()) settle();
    waiting.clear();
  };
  worker.on('error', (error) => end(`the probing thread failed (${error.message})`));
  worker.on('exit', (code) => end(`the probing thread stopped (exit code ${code})`));
  return {
    async figures() {
      if (!ended) {
        const request = ++requests;
        const settled = new Promise<void>((resolve) => waiting.set(request, resolve));
        worker.postMessage(request);
        await settled;
      }
      return { ...figures };
    },
    reset() {
      figures = fresh();
    },
    async stop() {
      end();
      await worker.terminate();
    },
  };
}

/** Figures before any probe. */
function fresh(): HealthFigures {
  return {
    slowestHealthzMs: 0,
    busiestHealthzCpuMs: 0,
    unansweredHealthz: 0,
    lastFailure: undefined,
    peakRss: 0,
    probes: 0,
  };
}
