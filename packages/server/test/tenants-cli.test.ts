// The tenants file through the CLI as a real child process: a bad file is one line and exit 2 before anything
// starts; a good one serves its keys with their limits, and the admin key reads usage.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCliToExit, startCli } from './cli-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-tenants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: unknown) => {
  const where = path.join(dir, name);
  writeFileSync(where, typeof content === 'string' ? content : JSON.stringify(content));
  return where;
};

describe('--tenants', () => {
  test('a bad tenants file: one line naming the file and the problem, exit 2', () => {
    const inline = file('inline.json', { tenants: [{ name: 'acme', keys: ['sk-secret-in-clear'] }] });
    const refused = runCliToExit(['--port', '0', '--tenants', inline]);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`${inline}: tenants[0].keys[0]: keys are not written in the tenants file`);
    expect(refused.stderr).not.toContain('sk-secret-in-clear');
    const broken = file('broken.json', '{"tenants": [');
    const unparsable = runCliToExit(['--port', '0'], { OPENRESPONSES_TENANTS: broken });
    expect(unparsable.status).toBe(2);
    expect(unparsable.stderr).toMatch(/broken\.json is not valid JSON/);
  });

  test('a good one: its keys are served with their limits and no key is generated; the admin key reads usage', async () => {
    const digest = createHash('sha256').update('tenant-key-b').digest('hex');
    const tenants = file('good.json', {
      tenants: [
        { name: 'acme', keys: [{ env: 'ACME_KEY' }], limits: { requestsPerMinute: 2 } },
        { name: 'beta', keys: [{ sha256: digest }] },
      ],
    });
    const { output, url } = await startCli(['--port', '0', '--tenants', tenants, '--admin-key', 'the-admin-key'], {
      ACME_KEY: 'tenant-key-a',
    });
    expect(output).toContain(`Tenants: 2 from ${tenants}`);
    expect(output).not.toContain('API key:');
    const ask = (key: string) =>
      fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: '{"input":"hi"}',
      });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await ask('tenant-key-a')).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await ask('tenant-key-b')).status).toBe(200);
    expect((await ask('not-a-key')).status).toBe(401);
    const usage = await fetch(`${url}/v1/usage`, { headers: { authorization: 'Bearer the-admin-key' } });
    const rows = ((await usage.json()) as { data: Array<{ tenant: string; requests: number }> }).data;
    expect(rows.map((row) => [row.tenant, row.requests]).sort()).toEqual([
      ['acme', 2],
      ['beta', 1],
    ]);
  });
});
