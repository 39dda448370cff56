// The CLI as a real child process: flags and env, the printed URL, key and curl line, /healthz, auth.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/node/cli.ts');
const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGTERM');
});

function start(args: string[], env: Record<string, string> = {}): Promise<{ output: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@openresponses/source', cli, ...args], {
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
        resolve({ output, child });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`the CLI exited with ${code}: ${output}`)));
  });
}
/** Runs the CLI to completion: for flags that make it print and exit. */
function runToExit(args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@openresponses/source', cli, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
const urlOf = (output: string) => /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/responses/.exec(output)![1]!;

describe('openresponses-server CLI', () => {
  test('--port 0 and --api-key: prints URL, key and a curl line; enforces the key', async () => {
    const { output } = await start(['--port', '0', '--api-key', 'k-one', '--api-key', 'k-two']);
    const url = urlOf(output);
    expect(output).toContain('API key: k-one');
    expect(output).toMatch(/Try: curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/responses .*Bearer k-one/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ask = (key: string) =>
      fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: '{"input":"hi"}',
      });
    expect((await ask('k-two')).status).toBe(200);
    expect((await ask('k-three')).status).toBe(401);
  });

  test('PORT, HOST and OPENRESPONSES_API_KEYS from the environment', async () => {
    const { output } = await start([], { PORT: '0', HOST: '127.0.0.1', OPENRESPONSES_API_KEYS: 'env-a, env-b' });
    const url = urlOf(output);
    expect(output).toContain('API key: env-a');
    const response = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer env-b' },
      body: '{"input":"hi"}',
    });
    expect(response.status).toBe(200);
  });

  test('--open runs without keys and warns', async () => {
    const { output } = await start(['--port', '0', '--open']);
    expect(output).toMatch(/no API keys configured/);
    expect(
      (
        await fetch(`${urlOf(output)}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"input":"hi"}',
        })
      ).status,
    ).toBe(200);
  });

  test('an invalid port is refused', async () => {
    await expect(start(['--port', 'eighty'])).rejects.toThrow(/invalid port/);
  });

  test('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(runToExit(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  test('--help lists every flag with its environment variable', () => {
    const { status, stdout } = runToExit(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: openresponses-server \[options\]/);
    expect(stdout).toMatch(/--port N .*\[env PORT\]/);
    expect(stdout).toMatch(/--api-key KEY .*\(repeatable\) \[env OPENRESPONSES_API_KEYS\]/);
  });

  test('an unknown flag or a missing value is one line, not a stack trace', () => {
    expect(runToExit(['--prot', '8080'])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'openresponses-server: unknown option --prot (see openresponses-server --help)\n',
    });
    const missing = runToExit(['--port']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe(
      'openresponses-server: option --port needs a value (see openresponses-server --help)\n',
    );
  });

  test('a busy port names the flag that changes it', async () => {
    const occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
    const { port } = occupant.address() as { port: number };
    try {
      const { status, stderr } = runToExit(['--port', String(port), '--open']);
      expect(status).toBe(1);
      expect(stderr).toContain(
        `openresponses-server: port ${port} on 127.0.0.1 is already in use; choose another with --port N`,
      );
      expect(stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
    } finally {
      occupant.close();
    }
  });
});
