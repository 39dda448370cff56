// `openresponses-server usage` as a real child process: it reads a running server's GET /v1/usage with the admin
// key and prints the same numbers as a table (or the endpoint's JSON); a wrong key, a server without the admin
// key, an unreachable one and a hostile answer are each one line and exit 1, a bad flag exit 2.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { serverCli } from '../../../test-support/server-cli.js';
import { startCli } from './cli-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `openresponses-server usage …` without blocking this process (a test server may have to answer it). */
function usage(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [serverCli, 'usage', ...args],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

describe('openresponses-server usage', () => {
  test('prints what GET /v1/usage answers, as a table with a total and as JSON; a wrong key is one line', async () => {
    const tenants = path.join(dir, 'tenants.json');
    writeFileSync(
      tenants,
      JSON.stringify({
        tenants: [
          { name: 'acme', keys: [{ sha256: createHash('sha256').update('usage-key-a').digest('hex') }] },
          { name: 'beta', keys: [{ sha256: createHash('sha256').update('usage-key-b').digest('hex') }] },
        ],
        prices: { 'openresponses-deterministic': { input: 1, output: 2 } },
      }),
    );
    const { url } = await startCli(['--port', '0', '--tenants', tenants, '--admin-key', 'the-admin-key']);
    const ask = (key: string, input: string) =>
      fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'openresponses-deterministic', input }),
      });
    for (const input of ['one', 'two words', 'and three words'])
      expect((await ask('usage-key-a', input)).status).toBe(200);
    expect((await ask('usage-key-b', 'hello')).status).toBe(200);

    const endpoint = (await (
      await fetch(`${url}/v1/usage`, { headers: { authorization: 'Bearer the-admin-key' } })
    ).json()) as { from: string; data: Array<Record<string, number | string>> };
    expect(endpoint.data.map((row) => row.tenant)).toEqual(['acme', 'beta']);

    const table = await usage(['--url', url], { OPENRESPONSES_ADMIN_KEY: 'the-admin-key' });
    expect(table.stderr).toBe('');
    expect(table.status).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Usage ${endpoint.from} to ${endpoint.from} (UTC days)`);
    expect(lines[1]!.split(/\s+/)).toEqual([
      'day',
      'tenant',
      'model',
      'requests',
      'input',
      'cached',
      'output',
      'reasoning',
      'cost',
    ]);
    const cells = (row: Record<string, number | string>) => [
      row.day,
      row.tenant,
      row.model,
      String(row.requests),
      String(row.input_tokens),
      String(row.input_cached_tokens),
      String(row.output_tokens),
      String(row.output_reasoning_tokens),
      (row.cost as number).toFixed(4),
    ];
    expect(lines.slice(2, 4).map((line) => line.split(/\s+/))).toEqual(endpoint.data.map(cells));
    const sum = (field: string) => String(endpoint.data.reduce((total, row) => total + (row[field] as number), 0));
    expect(lines[4]!.split(/\s+/).slice(0, 3)).toEqual(['total', '4', sum('input_tokens')]);
    expect(lines).toHaveLength(5);

    const json = await usage(['--url', url, '--admin-key', 'the-admin-key', '--tenant', 'beta', '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      ...endpoint,
      data: endpoint.data.filter((row) => row.tenant === 'beta'),
    });

    const refused = await usage(['--url', url, '--admin-key', 'not-the-admin-key']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      /^openresponses-server usage: http:\/\/127\.0\.0\.1:\d+\/v1\/usage answered 401: .* \(is the server started with --admin-key, and is this its key\?\)\n$/,
    );
    expect(refused.stderr).not.toContain('not-the-admin-key');
  }, 60_000);

  test('a server without --admin-key, an unreachable one, a bad flag', async () => {
    const { url } = await startCli(['--port', '0', '--api-key', 'some-key']);
    const absent = await usage(['--url', url, '--admin-key', 'x']);
    expect(absent.status).toBe(1);
    expect(absent.stderr).toMatch(
      /answered 401: .*\(is the server started with --admin-key, and is this its key\?\)\n$/,
    );
    const closed = await usage(['--url', 'http://127.0.0.1:9', '--admin-key', 'x']);
    expect(closed.status).toBe(1);
    expect(closed.stderr).toMatch(
      /^openresponses-server usage: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/usage: .+\n$/,
    );
    const badDay = await usage(['--admin-key', 'x', '--from', '2026-02-30x']);
    expect(badDay.status).toBe(2);
    expect(badDay.stderr).toContain("option '--from <DAY>' argument '2026-02-30x' is invalid. Expected a UTC day");
    const noKey = await usage([], { OPENRESPONSES_ADMIN_KEY: '' });
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toBe(
      'openresponses-server usage: --admin-key (OPENRESPONSES_ADMIN_KEY) is empty. (see openresponses-server usage --help)\n',
    );
    const notHttp = await usage(['--admin-key', 'x', '--url', 'redis://127.0.0.1:6379']);
    expect(notHttp.status).toBe(2);
    expect(notHttp.stderr).toContain('--url expects an http(s) URL.');
  }, 60_000);

  test('an answer that is not a usage report, and names with escape sequences, never reach the terminal as they are', async () => {
    let answer = '';
    const server = createServer((_request, response) => response.writeHead(200).end(answer));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      answer = JSON.stringify({ object: 'list', from: 'x', to: 'y', data: [{ tenant: 'a', requests: -1 }] });
      const malformed = await usage(['--url', url, '--admin-key', 'x']);
      expect(malformed.status).toBe(1);
      expect(malformed.stderr).toMatch(/^openresponses-server usage: .* did not answer a usage report: /);
      const row = {
        tenant: 'evil\u001b[2J',
        model: 'm\u0007\u009b31m',
        day: '2026-11-28',
        requests: 1,
        input_tokens: 2,
        input_cached_tokens: 0,
        output_tokens: 3,
        output_reasoning_tokens: 0,
      };
      answer = JSON.stringify({ object: 'list', from: '2026-11-28', to: '2026-11-28', data: [row] });
      const escaped = await usage(['--url', url, '--admin-key', 'x']);
      expect(escaped.status).toBe(0);
      expect(escaped.stdout).toContain('evil?[2J');
      expect(escaped.stdout).toContain('m??31m');
      expect(escaped.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    } finally {
      server.close();
    }
  }, 60_000);
});
