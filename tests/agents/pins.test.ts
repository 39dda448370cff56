// The agent versions the README and the guide say are proven are the ones these tests pin and run (the docs
// once named @openai/agents 0.20.0 after the pin had to move back to 0.14.3 for Node 20).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const read = (file: string): string => readFileSync(path.join(repoRoot, file), 'utf8');
const devDependencies = (file: string): Record<string, string> =>
  (JSON.parse(read(file)) as { devDependencies: Record<string, string> }).devDependencies;
const pinned = devDependencies('tests/agents/package.json');
const docs = ['README.md', 'docs/use-with-codex-and-agents.md'];

/** Every version the docs name for an agent, by the patterns they write it in. */
const named = (pattern: RegExp): string[] => docs.flatMap((doc) => [...read(doc).matchAll(pattern)].map((m) => m[1]!));

/** The package.json Node's lookup from this folder finds for `name` (its `exports` may not list it). */
function installedManifest(name: string): string {
  for (let folder = here; ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return manifest;
    if (folder === path.dirname(folder)) throw new Error(`${name} is not installed`);
  }
}

test.each([
  ['@openai/agents', /(?:Agents SDK|`@openai\/agents`|@openai\/agents@)\s*(\d+\.\d+\.\d+)/g],
  ['@openai/codex', /(?:Codex CLI|`@openai\/codex`|@openai\/codex@)\s*(\d+\.\d+\.\d+)/g],
] as const)(
  '%s is pinned exactly, installed at that version, and every version the docs name is it',
  (name, pattern) => {
    const version = pinned[name];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(readFileSync(installedManifest(name), 'utf8')) as { version: string };
    expect(installed.version).toBe(version);
    const versions = named(pattern);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(new Set(versions)).toEqual(new Set([version]));
  },
);

test('the docs tests type-check the guide against the same @openai/agents', () => {
  expect(devDependencies('tests/docs/package.json')['@openai/agents']).toBe(pinned['@openai/agents']);
});
