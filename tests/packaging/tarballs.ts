// The published packages as a consumer gets them: every public workspace package packed with `npm pack`
// and installed from the tarballs into a scratch project. The packaging test and the runtime tests
// (Bun, Deno, workerd) both start from here.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'openapi/manifest.json'), 'utf8')) as {
  versions: Array<{ version: string }>;
};
export const specVersions = manifest.versions.map((v) => v.version);

export interface PackageInfo {
  dir: string;
  json: { name: string; private?: boolean; exports: Record<string, unknown>; dependencies?: Record<string, string> };
}

/** Every publishable workspace package, derived from the workspace (no hand-kept list). */
export const publicPackages: PackageInfo[] = readdirSync(path.join(repoRoot, 'packages'))
  .map((name) => path.join(repoRoot, 'packages', name))
  .map((dir) => ({ dir, json: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) }))
  .filter((p) => !p.json.private);

/** Import specifiers of a package's public entry points; `./*` patterns stand for one subpath per spec version. */
export function entryPoints(pkg: PackageInfo): string[] {
  return Object.keys(pkg.json.exports)
    .filter((key) => key !== './package.json')
    .flatMap((key) => (key.includes('*') ? specVersions.map((v) => key.replace('*', v)) : [key]))
    .map((key) => (key === '.' ? pkg.json.name : `${pkg.json.name}/${key.slice(2)}`));
}

/** Packs every public package into `destination` (in parallel); returns package name -> tarball path. */
export async function packAll(destination: string): Promise<Map<string, string>> {
  const packed = await Promise.all(
    publicPackages.map(async (pkg) => {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], { cwd: pkg.dir });
      const [result] = JSON.parse(stdout) as Array<{ filename: string }>;
      return [pkg.json.name, path.join(destination, result!.filename)] as const;
    }),
  );
  return new Map(packed);
}

/**
 * Creates an ESM project in `project` that depends on the tarballs (and on `others`, from the registry)
 * and installs them. Published packages depend on each other by version, so `overrides` points those at
 * the tarballs too.
 */
export async function installTarballs(
  project: string,
  tarballs: Map<string, string>,
  others: Record<string, string> = {},
): Promise<void> {
  mkdirSync(project, { recursive: true });
  const ours = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: path.basename(project),
        private: true,
        type: 'module',
        dependencies: { ...others, ...ours },
        overrides: ours,
      },
      null,
      2,
    ),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], { cwd: project });
}

/** Public packages missing from a workspace's devDependencies (turbo builds a test's devDependencies before it runs). */
export function missingFromDevDependencies(packageJson: URL): string[] {
  const own = JSON.parse(readFileSync(packageJson, 'utf8')) as { devDependencies?: Record<string, string> };
  return publicPackages.map((p) => p.json.name).filter((name) => !own.devDependencies?.[name]);
}
