// Reference server processes (the real CLI, as a user runs it: the server package's bin, its build loading this
// package's build) on free loopback ports, sharing a store through OPENRESPONSES_STORE_URL. Not from the sources
// through tsx: a start costs ~0.9 s of CPU against ~1.6-3 s (tsx's loader hooks see every module), and the suite
// starts ~20. The global setup test-support/fresh-build.ts makes sure both builds are fresh.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const server = path.dirname(createRequire(import.meta.url).resolve('@openresponses/server/package.json'));
const cli = path.join(server, 'bin/openresponses-server.js');

export const KEYS = ['instances-key-of-tenant-a', 'instances-key-of-tenant-b'] as const;

export interface Instance {
  url: string;
  child: ChildProcess;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  stop(): Promise<number | null>;
}

/** Runs the CLI; resolves when it printed its URL, rejects with its output when it exits first. */
export function startInstance(env: Record<string, string>, args: string[] = []): Promise<Instance> {
  const child = spawn(process.execPath, [cli, '--port', '0', ...KEYS.flatMap((key) => ['--api-key', key]), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: repoRoot,
  });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${printed}`)), 30_000);
    const check = () => {
      const url = /on (http:\/\/[^\s]+)\/v1\/responses/.exec(printed)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({
        url,
        child,
        output: () => printed,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`the server exited with ${code}:\n${printed}`), { code, output: printed }));
    });
  });
}
