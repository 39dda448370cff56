import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { edgeViolations, workspaceImports } from './edges.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Exceptions waiting for a published export; each entry must still occur (the second test), so the list
// empties as soon as the import goes. None today.
const PENDING: string[] = [];
const found = edgeViolations(repoRoot, ['bench', 'scripts']).map((v) => `${v.file} -> ${v.specifier}`);

test('bench/ and scripts/ import no package src/ or test/ (published entry points only)', () => {
  expect(found.filter((v) => !PENDING.includes(v))).toEqual([]);
});

test('every pending exception still exists (remove it from PENDING once its import is gone)', () => {
  expect(PENDING.filter((v) => !found.includes(v))).toEqual([]);
});

// Their typechecks read the packages' built declarations: turbo builds what a workspace depends on first, so
// each workspace package they import must be a dependency in their own package.json (both are workspaces).
test.each([
  ['scripts', 'scripts/package.json'],
  ['bench', 'bench/package.json'],
])('every workspace package %s/ imports is a dependency in %s', (folder, manifest) => {
  const { dependencies = {}, devDependencies = {} } = JSON.parse(
    readFileSync(path.join(repoRoot, manifest), 'utf8'),
  ) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const declared = new Set(Object.keys({ ...dependencies, ...devDependencies }));
  const imported = workspaceImports(repoRoot, [folder]);
  expect(imported.length).toBeGreaterThan(0);
  expect(imported.filter((name) => !declared.has(name))).toEqual([]);
});

test('the check sees relative, deep and dynamic imports into src/ and test/', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'openresponses-edges-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'bench/fixtures'), { recursive: true });
  writeFileSync(
    path.join(root, 'bench/fixtures/bad.ts'),
    [
      "import { a } from '../../packages/events/src/sse/decoder.js';",
      "export { b } from '../../packages/server/test/child-server.js';",
      "const c = await import('@openresponses/zod/src/index.js');",
      "import { d } from '@openresponses/server/node';",
      "import { e } from '../../test-support/redis-server.js';",
      "import { f } from '../harness.js';",
    ].join('\n'),
  );
  expect(edgeViolations(root, ['bench'])).toEqual([
    {
      file: 'bench/fixtures/bad.ts',
      specifier: '../../packages/events/src/sse/decoder.js',
      reaches: 'packages/events/src',
    },
    {
      file: 'bench/fixtures/bad.ts',
      specifier: '../../packages/server/test/child-server.js',
      reaches: 'packages/server/test',
    },
    {
      file: 'bench/fixtures/bad.ts',
      specifier: '@openresponses/zod/src/index.js',
      reaches: '@openresponses/zod/src/index.js',
    },
  ]);
});
