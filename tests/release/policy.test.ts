// The versioning policy as configuration: every public package is in the one fixed group, every pending
// changeset names packages that exist, and the publish guard refuses without an explicit registry. None of
// these tests publishes anything or contacts a registry.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import parseChangeset from '@changesets/parse';
import { expect, test } from 'vitest';
import { repoRoot } from './repo-copy.js';

const publicPackages = readdirSync(path.join(repoRoot, 'packages'))
  .map((dir) => JSON.parse(readFileSync(path.join(repoRoot, 'packages', dir, 'package.json'), 'utf8')))
  .filter((json) => !json.private)
  .map((json) => json.name as string)
  .sort();

test('all public packages move together: one fixed group, exactly the public workspace packages', () => {
  const config = JSON.parse(readFileSync(path.join(repoRoot, '.changeset/config.json'), 'utf8'));
  expect(config.fixed).toEqual([publicPackages]);
  expect(config.linked).toEqual([]);
});

test('every pending changeset parses and releases only public packages', () => {
  const files = readdirSync(path.join(repoRoot, '.changeset')).filter((f) => f.endsWith('.md') && f !== 'README.md');
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const { releases, summary } = parseChangeset(readFileSync(path.join(repoRoot, '.changeset', file), 'utf8'));
    expect(releases.length, `${file} releases no package (is its front matter intact?)`).toBeGreaterThan(0);
    for (const release of releases) expect(publicPackages, file).toContain(release.name);
    expect(summary.length, `${file} has no summary`).toBeGreaterThan(0);
  }
});

function release(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_config_')),
  );
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'scripts/release.ts'), ...args], {
    cwd: repoRoot,
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('publishing without --registry refuses before building or publishing anything', () => {
  const { status, stdout, stderr } = release([]);
  expect(status).toBe(2);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^release: no registry target; nothing was published\./);
});

test('an upper-case NPM_CONFIG_REGISTRY alone is not a target (changeset publish would ignore it)', () => {
  const { status, stderr } = release([], { NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/' });
  expect(status).toBe(2);
  expect(stderr).toMatch(/no registry target/);
});

test('a registry setting that disagrees with --registry refuses, in any spelling', () => {
  for (const name of ['NPM_CONFIG_REGISTRY', 'npm_config_registry', 'npm_config_@openresponses:registry']) {
    const { status, stderr } = release(['--registry', 'http://127.0.0.1:9/'], {
      [name]: 'https://registry.npmjs.org/',
    });
    expect(status, name).toBe(2);
    expect(stderr).toContain(`${name}=https://registry.npmjs.org/ disagrees with --registry http://127.0.0.1:9/`);
  }
  expect(release(['--registry', 'ftp://example/']).stderr).toMatch(/is not an http\(s\) URL/);
  expect(release(['--registyr', 'http://127.0.0.1:9/']).stderr).toMatch(/Unknown option '--registyr'/);
});
