// The compliance CLI as a real child process (from the package's build: test-support/fresh-build.ts): --version,
// usage errors, an unreachable server, and a real run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@openresponses/server/node';
import { expect, test } from 'vitest';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

test('--version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(await run(['--version'])).toEqual({ status: 0, stdout: `${version}\n`, stderr: '' });
});

test('usage mistakes are one line naming the flag, with status 2, before any request', async () => {
  const suffix = '(see openresponses-compliance --help)\n';
  const base = ['--base-url', 'http://127.0.0.1:1/v1'];
  expect(await run([...base, '--jsn'])).toEqual({
    status: 2,
    stdout: '',
    stderr: `openresponses-compliance: unknown option '--jsn' (Did you mean --json?) ${suffix}`,
  });
  const cases: Array<[string[], string]> = [
    [[], "required option '--base-url <URL>' not specified"],
    [['--base-url', 'localhost:8080'], "option '--base-url <URL>' argument 'localhost:8080' is invalid"],
    [[...base, '--transport', 'grpc'], "option '--transport <LIST>' argument 'grpc' is invalid"],
    [[...base, '--report', 'pdf'], "option '--report <FORMAT>' argument 'pdf' is invalid. Allowed choices are html."],
    [
      [...base, '--websocket-connection-limit-ms', 'soon'],
      "option '--websocket-connection-limit-ms <MS>' argument 'soon' is invalid",
    ],
    [[...base, '--context-overflow-words', '0'], "option '--context-overflow-words <N>' argument '0' is invalid"],
  ];
  for (const [args, message] of cases) {
    const { status, stdout, stderr } = await run(args);
    expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
    expect(stderr).toMatch(
      new RegExp(
        `^openresponses-compliance: ${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.* \\(see openresponses-compliance --help\\)\n$`,
      ),
    );
  }
});

test('--websocket-connection-limit-ms waits for the limit and checks its error', async () => {
  const server = await startServer({ apiKeys: ['cli-key'], warn: () => {}, connectionLimitMs: 300 });
  try {
    const args = ['--base-url', `${server.url}/v1`, '--api-key', 'cli-key', '--filter', 'ws-connection-limit'];
    const { status, stdout } = await run([...args, '--websocket-connection-limit-ms', '300']);
    expect(stdout).toMatch(/^✓ ws-connection-limit \(\d+ ms\)\n\n1 passed, 0 failed, 0 skipped\n$/);
    expect(status).toBe(0);
    // Without the flag the test is skipped, and the reason names the flag. The skip is timed like any test:
    // a loaded machine (a GC pause, a busy core) can make even a test that stops at once read a few ms.
    const skipped = await run(args);
    expect(skipped.stdout).toMatch(
      /^- ws-connection-limit \(\d+ ms\) skipped: pass the server's limit to wait for it: --websocket-connection-limit-ms MS/,
    );
    expect(skipped.status).toBe(0);
  } finally {
    await server.close();
  }
});

test('an unreachable server is one "cannot reach" line with status 2, not a failure per test', async () => {
  // A port that was just free and is closed again: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  const { status, stdout, stderr } = await run(['--base-url', `http://127.0.0.1:${port}/v1`]);
  expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
  expect(stderr).toBe(
    `openresponses-compliance: cannot reach http://127.0.0.1:${port}/v1: connect ECONNREFUSED 127.0.0.1:${port}\n`,
  );
});

test('a refused key, a missing key and a base URL without /v1 are one line each with status 2', async () => {
  const server = await startServer({ apiKeys: ['cli-key'], warn: () => {} });
  try {
    const cases: Array<[string[], RegExp]> = [
      [
        ['--base-url', `${server.url}/v1`, '--api-key', 'wrong-key'],
        /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/responses answered 401 \(.+\): the server refused the API key given by --api-key or OPENRESPONSES_API_KEY$/,
      ],
      [
        ['--base-url', `${server.url}/v1`],
        /^POST \S+ answered 401 \(.+\): the server wants an API key; pass --api-key KEY or set OPENRESPONSES_API_KEY$/,
      ],
      [
        ['--base-url', server.url, '--api-key', 'cli-key'],
        /^POST http:\/\/127\.0\.0\.1:\d+\/responses answered 404 \(.+\): --base-url must be the API root, such as http:\/\/127\.0\.0\.1:8080\/v1/,
      ],
    ];
    for (const [args, line] of cases) {
      const { status, stdout, stderr } = await run(args);
      expect({ status, stdout }, args.join(' ')).toEqual({ status: 2, stdout: '' });
      expect(stderr.split('\n'), args.join(' ')).toHaveLength(2);
      expect(stderr.replace(/^openresponses-compliance: /, '').trim()).toMatch(line);
    }
  } finally {
    await server.close();
  }
});

test('a filter that selects no test is status 2; --list prints the selected ids without a server', async () => {
  const none = await run(['--base-url', 'http://127.0.0.1:1/v1', '--filter', 'nosuch']);
  expect({ status: none.status, stdout: none.stdout }).toEqual({ status: 2, stdout: '' });
  expect(none.stderr).toBe(
    'openresponses-compliance: no test matches --filter nosuch on http, websocket; --list shows the ids (see openresponses-compliance --help)\n',
  );
  const list = await run(['--list', '--filter', 'error-401,ws-connection-limit', '--transport', 'websocket']);
  expect(list.status).toBe(0);
  expect(list.stdout).toMatch(/^ws-connection-limit {2}websocket {2}\S.*\n$/);
  const all = await run(['--list']);
  expect(all.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(50);
});

test('a reachable server runs the selected tests and exits 0', async () => {
  const server = await startServer({ apiKeys: ['cli-key'], warn: () => {} });
  try {
    const { status, stdout, stderr } = await run([
      '--base-url',
      `${server.url}/v1`,
      '--api-key',
      'cli-key',
      '--filter',
      'error-401',
      '--transport',
      'http',
      '--json',
    ]);
    expect(stderr).toMatch(/^✓ error-401 \(\d+ ms\)\n$/);
    expect(status).toBe(0);
    expect(JSON.parse(stdout).summary).toEqual({ passed: 1, failed: 0, skipped: 0 });
    // Without --json: each result once, then the summary.
    const text = await run([
      '--base-url',
      `${server.url}/v1`,
      '--api-key',
      'cli-key',
      '--filter',
      'error-401,error-404-previous-response',
    ]);
    expect(text.stderr).toBe('');
    expect(text.stdout).toMatch(
      /^✓ error-401 \(\d+ ms\)\n✓ error-404-previous-response \(\d+ ms\)\n\n2 passed, 0 failed, 0 skipped\n$/,
    );
  } finally {
    await server.close();
  }
});
