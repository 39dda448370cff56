// Reference server processes (the real CLI from the server's build, loading this package's build:
// test-support/server-cli.ts) on free loopback ports, sharing a store through OPENRESPONSES_STORE_URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serverCli } from '../../../test-support/server-cli.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

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
  const child = spawn(
    process.execPath,
    [serverCli, '--port', '0', ...KEYS.flatMap((key) => ['--api-key', key]), ...args],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: repoRoot,
    },
  );
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
