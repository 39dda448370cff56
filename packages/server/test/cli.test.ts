// The CLI as a real child process: flags and env, the printed URL, key and curl line, /healthz, auth.
import { spawn, type ChildProcess } from 'node:child_process';
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
});
