import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { excludingMajor, type Lock, lowestMajor, notCovering, runtimeClosure } from './engines.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8')) as T;
const lock = readJson<Lock>('package-lock.json');
const claimed = readJson<{ engines: { node: string } }>('package.json').engines.node;
const published = Object.entries(lock.packages).filter(
  ([where, entry]) => where.startsWith('packages/') && entry.name !== undefined && !entry.private,
);

// Some dev tools need a later Node 20 minor (vite 8: ^20.19.0), so the whole lock file is held to the major;
// what a user installs with a published package (the next test) is held to every release of it.
test('every package in the lock file runs on some release of the lowest Node major the root claims', () => {
  expect(lowestMajor(claimed)).toBe('^20.0.0');
  expect(excludingMajor(lock, lowestMajor(claimed))).toEqual([]);
});

test('what a published package installs supports every release of the lowest Node major it claims', () => {
  expect(published.length).toBeGreaterThan(5);
  const mismatches = published.map(([where, entry]) => ({
    where,
    mismatches: notCovering(lock, runtimeClosure(lock, where), lowestMajor(entry.engines?.node ?? claimed)),
  }));
  expect(mismatches.filter((m) => m.mismatches.length > 0)).toEqual([]);
});

test("a published package's closure in the real lock file holds its workspace and registry dependencies", () => {
  const server = runtimeClosure(lock, 'packages/server');
  expect(server).toEqual(expect.arrayContaining(['packages/events', 'packages/types', 'node_modules/ws']));
  expect(server).not.toContain('node_modules/@opentelemetry/sdk-node');
});

test('the checks see a dependency that left Node 20, nested or reached through a link, and skip optional peers', () => {
  const synthetic: Lock = {
    packages: {
      '': { name: 'root', engines: { node: '>=20' } },
      'packages/app': {
        name: 'app',
        engines: { node: '>=20' },
        dependencies: { agents: '0.20.0', lib: '1.0.0' },
        peerDependencies: { telemetry: '^1', zod: '^4' },
        peerDependenciesMeta: { telemetry: { optional: true } },
      },
      'node_modules/app': { link: true, resolved: 'packages/app' },
      'node_modules/agents': { version: '0.20.0', dependencies: { openai: '^7', app: '*' } },
      'node_modules/agents/node_modules/openai': { version: '7.59.0', engines: { node: '>=22.0.0' } },
      'node_modules/openai': { version: '6.49.0' },
      'node_modules/lib': { version: '1.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
      'node_modules/telemetry': { version: '1.0.0', engines: { node: '>=20.6.0' } },
      'node_modules/zod': { version: '4.1.0', engines: { node: '20 || >=22' } },
    },
  };
  expect(excludingMajor(synthetic, '^20.0.0')).toEqual([
    { where: 'node_modules/agents/node_modules/openai', version: '7.59.0', engines: '>=22.0.0' },
  ]);
  const closure = runtimeClosure(synthetic, 'packages/app');
  expect(closure).toEqual([
    'node_modules/agents',
    'node_modules/agents/node_modules/openai',
    'node_modules/lib',
    'node_modules/zod',
  ]);
  expect(notCovering(synthetic, closure, '^20.0.0').map((m) => m.where)).toEqual([
    'node_modules/agents/node_modules/openai',
    'node_modules/lib',
  ]);
  expect(() => lowestMajor('<0.0.0-0')).toThrow(/admits no Node version/);
});
