// The published entry points of every public package, read from each package.json's `exports` (the
// `@openresponses/source` condition, else `types`), with `*` subpaths expanded over the spec versions in
// openapi/manifest.json. Used by the TypeDoc config and the docs tests: one list, named by import path.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `[{ packageName: '@openresponses/zod', importPath: '@openresponses/zod/mini', file: '/…/packages/zod/src/generated/mini/index.gen.ts' }, …]` */
export function entryPoints() {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'openapi/manifest.json'), 'utf8'));
  const versions = manifest.versions.map((v) => v.version);
  const result = [];
  for (const dir of readdirSync(path.join(repoRoot, 'packages')).sort()) {
    const manifestFile = path.join(repoRoot, 'packages', dir, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const pkg = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (pkg.private) continue;
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      if (subpath === './package.json') continue;
      const file = typeof target === 'string' ? target : (target['@openresponses/source'] ?? target.types);
      const names = subpath.includes('*')
        ? versions.map((v) => [subpath.replace('*', v), file.replace('*', v)])
        : [[subpath, file]];
      for (const [name, rel] of names)
        result.push({
          packageName: pkg.name,
          importPath: name === '.' ? pkg.name : `${pkg.name}/${name.slice(2)}`,
          file: path.join(repoRoot, 'packages', dir, rel),
        });
    }
  }
  return result;
}
