// Probes of a running server from outside: how fast /healthz answers, and how much CPU time the server spent
// meanwhile (the measure of a stall that holds on a loaded machine), with its peak RSS. The hostile tests and
// the hostile contract suite judge a server by them.

/** A server probed from outside: its URL, and its process's resident memory and CPU time (Linux: /proc). */
export interface ProbedServer {
  /** The server's origin (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** Resident set size of the server's process, in bytes. */
  rss(): number;
  /** CPU time the server's process has used so far, user and system, in ms. */
  cpuMs(): number;
  /** Whether the process is still running. */
  alive(): boolean;
}

/** Time for one `GET /healthz` in ms (Infinity when it fails or takes longer than `timeoutMs`). */
export async function healthzMs(url: string, timeoutMs = 5000): Promise<number> {
  return (await probeHealthz(url, timeoutMs)).ms;
}

/** Error codes of a connection that failed under a request before any answer (a reused keep-alive socket the server closed). */
const CONNECTION_FAILURES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED']);

/**
 * One `GET /healthz`: its time in ms, or Infinity and why (the status, or the error and its cause). A request
 * whose connection failed before any answer is sent once more, within the same time: a pooled keep-alive
 * socket can close under it whatever the server does, and a probe judges the server, not the client's pool.
 */
async function probeHealthz(url: string, timeoutMs: number): Promise<{ ms: number; failure?: string }> {
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
      if (signal.aborted || !code || !CONNECTION_FAILURES.has(code)) break;
    }
  }
  return { ms: Infinity, failure: failures.join(', then ') };
}

/**
 * Probes a server's health and memory every `everyMs` until stopped: the slowest /healthz, the most CPU time the
 * server spent while one /healthz waited for its answer, how many went unanswered (within `timeoutMs`), and the
 * largest RSS seen. The CPU time is the measure of a stall that holds on a loaded machine: a blocked event loop
 * spends the whole wait computing, while a healthy server on a busy machine waits its turn for a core (its
 * /healthz slower in wall-clock time, its CPU time the same).
 */
export function watch(server: ProbedServer, everyMs = 200, timeoutMs = 30_000) {
  let slowest = 0;
  let busiestCpu = 0;
  let unanswered = 0;
  let lastFailure: string | undefined;
  let peakRss = 0;
  let probes = 0;
  let running = true;
  const cpuMs = () => (server.alive() ? server.cpuMs() : 0);
  const loop = (async () => {
    while (running) {
      const cpuBefore = cpuMs();
      const { ms, failure } = await probeHealthz(server.url, timeoutMs);
      const cpu = cpuMs() - cpuBefore;
      probes++;
      if (ms === Infinity) {
        unanswered++;
        lastFailure = failure;
      } else if (ms > slowest) slowest = ms;
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
    /** Why the last unanswered probe got no answer (its status, or its error and cause), if one did not. */
    get lastFailure() {
      return lastFailure;
    },
    /** The largest RSS seen, in bytes. */
    get peakRss() {
      return peakRss;
    },
    /** Probes made since the last reset. */
    get probes() {
      return probes;
    },
    /** Resets the maxima (per test). */
    reset() {
      slowest = 0;
      busiestCpu = 0;
      unanswered = 0;
      lastFailure = undefined;
      peakRss = 0;
      probes = 0;
    },
    /** Stops probing (resolves once the last probe ended). */
    async stop() {
      running = false;
      await loop;
    },
  };
}
