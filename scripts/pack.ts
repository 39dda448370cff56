// npm run pack — after `npm run build`, packs every public package into tarballs/ (gitignored), the way
// `npm publish` would, and prints for each package the `npm install` line that installs it in another
// project from those tarballs: the package, the @openresponses packages it depends on (they are not on a
// registry until a release exists) and its other peer dependencies.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './repo-root.js';

interface Manifest {
  name: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const SCOPE = '@openresponses/';
const destination = path.join(repoRoot, 'tarballs');
const packages = readdirSync(path.join(repoRoot, 'packages'))
  .map((folder) => path.join(repoRoot, 'packages', folder))
  .map((dir) => ({ dir, json: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest }))
  .filter((p) => !p.json.private);

rmSync(destination, { recursive: true, force: true });
mkdirSync(destination);
const run = promisify(execFile);
// In parallel: each `npm pack` spends most of its time starting npm.
const tarballs = new Map(
  await Promise.all(
    packages.map(async ({ dir, json }) => {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: dir });
      const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
      return [json.name, path.join(destination, packed!.filename)] as const;
    }),
  ),
);

const byName = new Map(packages.map((p) => [p.json.name, p.json]));
const needs = (json: Manifest) => Object.keys({ ...json.dependencies, ...json.peerDependencies });
/** The package and every @openresponses package it needs, directly or not (dependencies and peers). */
function closure(name: string, seen = new Set<string>()): Set<string> {
  seen.add(name);
  for (const dep of needs(byName.get(name)!)) if (dep.startsWith(SCOPE) && !seen.has(dep)) closure(dep, seen);
  return seen;
}

const relative = path.relative(process.cwd(), destination) || '.';
console.log(`Packed ${tarballs.size} packages into ${relative}/. To use one in another project, install its line:`);
for (const name of tarballs.keys()) {
  const ours = [...closure(name)];
  const peers = ours
    .flatMap((n) => Object.keys(byName.get(n)!.peerDependencies ?? {}))
    .filter((d) => !d.startsWith(SCOPE));
  const files = ours.map((n) => tarballs.get(n)!);
  console.log(`  ${name}:\n    npm install ${[...files, ...new Set(peers)].join(' ')}`);
}
