// The HTML report, written by the real CLI (--report html) against a server with one bug: the failing
// test is open with the rule it broke, and every test shows the requests it sent and the streams it saw.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { MUTANT_API_KEY, MUTANTS, serve } from './mutants.js';

// The CLI from the package's build (test-support/fresh-build.ts).
const cli = path.resolve(import.meta.dirname, '../dist/cli.js');
const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr })));
}

test('--report html: one self-contained file with each test, its requests, its streams and the failed rule', async () => {
  const mutant = MUTANTS.find((m) => m.id === 'repeated-sequence-numbers')!;
  const broken = await serve(mutant);
  const file = path.join(dir, 'report.html');
  try {
    const { status, stderr } = await run([
      '--base-url',
      broken.baseURL,
      '--api-key',
      MUTANT_API_KEY,
      '--filter',
      'streaming,ws-single-turn',
      '--report',
      'html',
      '--report-file',
      file,
    ]);
    expect(status, stderr).toBe(1);
    expect(stderr).toContain(`HTML report: ${file}`);
  } finally {
    await broken.close();
  }
  const html = readFileSync(file, 'utf8');
  // Self-contained: no script, no stylesheet or image from elsewhere.
  expect(html).not.toMatch(/<script|<link|src=|url\(/i);
  const streaming = /<details class="fail" open id="http-streaming">([\s\S]*?)<\/details>/.exec(html)?.[1];
  expect(streaming, 'the failing HTTP test is open').toBeDefined();
  expect(streaming).toContain('rule <code>sequence-number-order</code>');
  expect(streaming).toContain('HTTP POST /responses — answered 200');
  expect(streaming).toContain('&quot;stream&quot;: true'); // the request body, pretty-printed and escaped
  expect(streaming).toContain('event: response.created'); // the SSE stream as it came
  expect(streaming).toContain('content-type: text/event-stream');
  // The WebSocket test (this bug is HTTP-only) passed, with the messages of its connection.
  const socketTest = /<details class="pass" id="websocket-[^"]+">([\s\S]*?)<\/details>/.exec(html)?.[1];
  expect(socketTest).toContain('WebSocket GET ws://');
  expect(socketTest).toContain('&quot;type&quot;: &quot;response.create&quot;');
  expect(socketTest).toContain('response.completed');
});

test('--report takes only html', async () => {
  const { status, stderr } = await run(['--base-url', 'http://127.0.0.1:1/v1', '--report', 'pdf']);
  expect(status).toBe(2);
  expect(stderr).toContain("option '--report <FORMAT>' argument 'pdf' is invalid. Allowed choices are html.");
});
