// The reference server as a real child process (the CLI from the package's build: test-support/server-cli.ts), for tests
// and scripts that need to measure it from outside: its resident memory, whether it survives, how fast /healthz
// answers.
import { spawn, type ChildProcess } from 'node:child_process';
import { serverCli } from '../../../test-support/server-cli.js';
import { processUsage } from '../src/testing/server-probe.js';

export interface ChildServer {
  url: string;
  /** The child's process id (what the probes read /proc by). */
  pid: number;
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
  const child = spawn(process.execPath, [serverCli, ...args], {
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
    pid: child.pid!,
    rss: () => processUsage(child.pid!)?.rssBytes ?? 0,
    alive: () => !exited && child.exitCode === null,
    stop: async () => {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

// The probes live with the hostile contract suite (@openresponses/server/testing), which judges any server by them.
export { type HealthMonitor, healthzMs, watch } from '../src/testing/server-probe.js';
