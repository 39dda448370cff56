// The CLI as a real child process: flags and env, the printed URL, key and curl line, /healthz, auth.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { runCliToExit, startCli, urlOf } from './cli-process.js';

describe('openresponses-server CLI', () => {
  test('--port 0 and --api-key: prints URL, key and a curl line; enforces the key', async () => {
    const { output } = await startCli(['--port', '0', '--api-key', 'k-one', '--api-key', 'k-two']);
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
    const { output } = await startCli([], { PORT: '0', HOST: '127.0.0.1', OPENRESPONSES_API_KEYS: 'env-a, env-b' });
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
    const { output } = await startCli(['--port', '0', '--open']);
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
    await expect(startCli(['--port', 'eighty'])).rejects.toThrow(/invalid port/);
  });

  test('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(runCliToExit(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
  });

  test('--help lists every flag with its environment variable', () => {
    const { status, stdout } = runCliToExit(['--help']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: openresponses-server \[options\]/);
    expect(stdout).toMatch(/--port N .*\[env PORT\]/);
    expect(stdout).toMatch(/--api-key KEY .*\(repeatable\) \[env OPENRESPONSES_API_KEYS\]/);
  });

  test('an unknown flag or a missing value is one line, not a stack trace', () => {
    expect(runCliToExit(['--prot', '8080'])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'openresponses-server: unknown option --prot (see openresponses-server --help)\n',
    });
    const missing = runCliToExit(['--port']);
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
      const { status, stderr } = runCliToExit(['--port', String(port), '--open']);
      expect(status).toBe(1);
      expect(stderr).toContain(
        `openresponses-server: port ${port} on 127.0.0.1 is already in use; choose another with --port N`,
      );
      expect(stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
    } finally {
      occupant.close();
    }
  });

  test('prints the playground URL with the key in the fragment, and serves the page there; --no-playground turns it off', async () => {
    const { output, url } = await startCli(['--port', '0', '--api-key', 'k/one']);
    expect(output).toContain(`Playground: ${url}/#key=k%2Fone`);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Open Responses playground');
    const off = await startCli(['--port', '0', '--api-key', 'k', '--no-playground']);
    expect(off.output).not.toContain('Playground:');
    expect((await fetch(`${off.url}/`)).status).toBe(401);
  });

  test('the encryption key warning, and keys, limit and compatibility from flags', async () => {
    const generated = await startCli(['--port', '0', '--open']);
    expect(generated.output).toMatch(/no encryption key configured.*OPENRESPONSES_ENCRYPTION_KEYS=k\w+:[\w-]{43}/);
    const key = `main:${Buffer.alloc(32, 7).toString('base64')}`;
    const configured = await startCli(
      ['--port', '0', '--open', '--websocket-connection-limit', '1s', '--compat', 'openai'],
      { OPENRESPONSES_ENCRYPTION_KEYS: key },
    );
    expect(configured.output).not.toMatch(/encryption key/);
    const url = /on (http:\/\/\S+)\/v1\/responses/.exec(configured.output)![1]!;
    const response = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'hi [think]', include: ['reasoning.encrypted_content'] }),
    });
    const body = (await response.json()) as { output: Array<{ encrypted_content?: string }> };
    expect(body.output[0]!.encrypted_content).toMatch(/^or2\.main\./);
  });

  test.each([
    [['--websocket-connection-limit', 'soon'], /--websocket-connection-limit 'soon' is not a duration/],
    [['--encryption-key', 'k:AAAA'], /--encryption-key: .*32 bytes/],
    [['--compat', 'anthropic'], /--compat 'anthropic' is not supported/],
  ])('%j is a usage error', (args, message) => {
    const { status, stderr } = runCliToExit(['--open', ...args]);
    expect(status).toBe(2);
    expect(stderr).toMatch(message);
  });
});
