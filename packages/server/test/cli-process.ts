// The server CLI as a real child process (from the package's build: test-support/server-cli.ts), stopped after each
// test (test/setup.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { serverCli } from '../../../test-support/server-cli.js';

const running: ChildProcess[] = [];

/** Stops every CLI started since the last call (test/setup.ts, after each test). */
export function stopStartedClis(): void {
  for (const child of running.splice(0)) child.kill('SIGTERM');
}

/** Starts the CLI and resolves once it printed its banner (the curl line). */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ output: string; child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [serverCli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the CLI did not start: ${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Try: curl')) {
        clearTimeout(timer);
        resolve({ output, child, url: urlOf(output) });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the CLI exited with ${code}: ${output}`)));
  });
}

/** Runs the CLI to completion: for flags that make it print and exit. */
export function runCliToExit(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [serverCli, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export const urlOf = (output: string) => /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/responses/.exec(output)![1]!;
