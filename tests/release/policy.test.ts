// The versioning policy as configuration: every public package is in the one fixed group, every pending
// changeset names packages that exist, and the publish guard refuses without an explicit registry. None of
// these tests publishes anything or contacts a registry.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import assembleReleasePlan from '@changesets/assemble-release-plan';
import { read as readConfig } from '@changesets/config';
import parseChangeset from '@changesets/parse';
import { getPackages } from '@manypkg/get-packages';
import { describe, expect, test } from 'vitest';
import { repoRoot } from './repo-copy.js';

interface PublicPackage {
  folder: string;
  json: {
    name: string;
    files: string[];
    repository: { url: string; directory: string };
    homepage: string;
    bugs: { url: string };
    license: string;
    bin?: Record<string, string>;
  };
}
const packages: PublicPackage[] = readdirSync(path.join(repoRoot, 'packages'))
  .map((dir) => ({
    folder: `packages/${dir}`,
    json: JSON.parse(readFileSync(path.join(repoRoot, 'packages', dir, 'package.json'), 'utf8')),
  }))
  .filter((p) => !p.json.private);
const publicPackages = packages.map((p) => p.json.name).sort();
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

test('all public packages move together: one fixed group, exactly the public workspace packages', () => {
  const config = JSON.parse(readFileSync(path.join(repoRoot, '.changeset/config.json'), 'utf8'));
  expect(config.fixed).toEqual([publicPackages]);
  expect(config.linked).toEqual([]);
});

test('every public package is a devDependency of the release tests, so turbo builds it before they copy it', () => {
  const own = JSON.parse(read('tests/release/package.json')) as { devDependencies: Record<string, string> };
  expect(Object.keys(own.devDependencies).filter((name) => name.startsWith('@openresponses/'))).toEqual(publicPackages);
});

describe('a pending changeset moves every public package to the next version of its kind, never to 1.0.0', async () => {
  const workspace = await getPackages(repoRoot);
  const config = await readConfig(repoRoot, workspace);
  const current = new Map(packages.map((p) => [p.json.name, (p.json as { version?: string }).version ?? '']));
  // One changeset naming one package, the rest following through the fixed group and their dependencies
  // (store-redis's peer dependency on the server once made every minor a major: 0.1.0 -> 1.0.0).
  test.each([
    ['minor', '@openresponses/types'],
    ['minor', '@openresponses/server'],
    ['patch', '@openresponses/server'],
  ] as const)('%s on %s', (type, name) => {
    const plan = assembleReleasePlan(
      [{ id: 'pending', summary: 'A change.', releases: [{ name, type }] }],
      workspace,
      config,
      undefined,
    );
    const moved = plan.releases.filter((r) => r.type !== 'none');
    expect(moved.map((r) => r.name).sort()).toEqual(publicPackages);
    for (const release of moved) {
      const [major, minor, patch] = current.get(release.name)!.split('.').map(Number) as [number, number, number];
      const next = type === 'minor' ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
      expect(`${release.name} ${release.newVersion}`).toBe(`${release.name} ${next}`);
    }
  });
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

describe.each(packages.map((p) => [p.json.name, p] as const))('%s is ready to publish', (name, { folder, json }) => {
  test('MIT LICENSE (the root one) in the package and in its files', () => {
    expect(json.license).toBe('MIT');
    expect(read(`${folder}/LICENSE`)).toBe(read('LICENSE'));
    expect(json.files).toContain('LICENSE');
  });

  test('repository, homepage and bugs point at this repository and folder', () => {
    const root = JSON.parse(read('package.json')) as { repository: { url: string } };
    expect(json.repository).toEqual({ type: 'git', url: root.repository.url, directory: folder });
    const web = root.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
    expect(json.homepage).toBe(`${web}/tree/main/${folder}#readme`);
    expect(json.bugs).toEqual({ url: `${web}/issues` });
  });

  test('README: an install line, the ESM-only note, no internal background documents', () => {
    const readme = read(`${folder}/README.md`);
    expect(readme).toMatch(new RegExp(`npm install [^\\n]*${name.replace('/', '\\/')}\\b`));
    expect(readme).toContain('ESM only');
    expect(readme).not.toMatch(/\bseed \d{3}\b|\.\.\/shared\//);
    // The published form and the workspace form (the bin shim, linked by `npm ci`).
    if (json.bin) expect(readme).toContain(`npx ${name}`);
    for (const bin of Object.keys(json.bin ?? {})) expect(readme).toContain(`npx ${bin}`);
  });
});

const markdown = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
  cwd: repoRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.startsWith('.changeset/') && !file.endsWith('CHANGELOG.md'));

/** A markdown text in chunks: each fenced code block, and each paragraph (lines up to a blank one). */
function chunks(text: string): string[] {
  const found: string[] = [];
  for (const [i, part] of text.split(/^```.*$/m).entries())
    if (i % 2 === 1) found.push(part);
    else found.push(...part.split(/\n\s*\n/));
  return found;
}

test('every npx line names a workspace bin (true after npm ci) or is marked as the published form', () => {
  expect(markdown.length).toBeGreaterThan(5);
  const bins = packages.flatMap((p) => Object.keys(p.json.bin ?? {}));
  expect(bins).toEqual(['openresponses-compliance', 'openresponses-server']);
  for (const file of markdown)
    for (const [, bin] of read(file).matchAll(/npx (openresponses-[\w-]+)/g)) expect(bins, file).toContain(bin);
});

test('every npm install or npx line of an @openresponses package says it is the published form', () => {
  const published = /npx @openresponses\/|npm (?:install|i)\b[^\n]*@openresponses\//;
  const unmarked = markdown.flatMap((file) =>
    chunks(read(file))
      .filter((chunk) => published.test(chunk) && !/published/i.test(chunk))
      .map((chunk) => `${file}: ${chunk.trim().split('\n')[0]}`),
  );
  expect(unmarked).toEqual([]);
  // The check sees both kinds of line, marked or not.
  expect(chunks('a\n\n```sh\nnpm install @openresponses/zod zod\n```\n').filter((c) => published.test(c))).toHaveLength(
    1,
  );
  expect(chunks('Run `npx @openresponses/server`.\n\nUnrelated.').filter((c) => published.test(c))).toHaveLength(1);
});
