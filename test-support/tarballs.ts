// The published packages as a consumer gets them: every public workspace package packed with `npm pack`
// and installed from the tarballs into a scratch project. The packaging test, the runtime tests (Bun, Deno,
// workerd) and the docs test that runs the guides' blocks as a reader does all start from here.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

/**
 * Every public package's tarball (`npm pack`, in parallel) copied into `destination`; returns package name ->
 * tarball path. The packaging, runtime and docs tests of one run pack the same builds, so the tarballs are
 * packed once per content of the package folders (every file but node_modules, which npm pack reads from)
 * and kept in node_modules/.cache/openresponses-tarballs/<that hash>.
 */
export async function packAll(destination: string): Promise<Map<string, string>> {
  const cacheRoot = path.join(repoRoot, 'node_modules/.cache/openresponses-tarballs');
  const cached = path.join(cacheRoot, packageContentHash());
  const index = path.join(cached, 'tarballs.json');
  if (!existsSync(index)) {
    mkdirSync(cacheRoot, { recursive: true });
    // Packed beside the cache entry and renamed into place whole: a concurrent run never sees half of it.
    const fresh = mkdtempSync(`${cached}-`);
    const packed = await Promise.all(
      publicPackages.map(async (pkg) => {
        const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', fresh], { cwd: pkg.dir });
        const [result] = JSON.parse(stdout) as Array<{ filename: string }>;
        return [pkg.json.name, result!.filename] as const;
      }),
    );
    writeFileSync(path.join(fresh, 'tarballs.json'), JSON.stringify(Object.fromEntries(packed)));
    try {
      renameSync(fresh, cached);
    } catch {
      rmSync(fresh, { recursive: true, force: true }); // Another run put the same tarballs there first.
    }
    pruneCache(cacheRoot, cached);
  }
  const files = JSON.parse(readFileSync(index, 'utf8')) as Record<string, string>;
  mkdirSync(destination, { recursive: true });
  return new Map(
    Object.entries(files).map(([name, file]) => {
      copyFileSync(path.join(cached, file), path.join(destination, file));
      return [name, path.join(destination, file)] as const;
    }),
  );
}

/**
 * sha256 of the paths and bytes of what npm pack may read in the public package folders: their top-level files
 * (package.json, README, LICENSE, …) and what each `files` field names (a package without one: everything but
 * node_modules). What tests write elsewhere in a folder meanwhile (server/.tmp) does not change it.
 */
function packageContentHash(): string {
  const hash = createHash('sha256');
  const add = (file: string) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat?.isFile()) hash.update(`${path.relative(repoRoot, file)}\0`).update(readFileSync(file));
    else if (stat?.isDirectory())
      for (const entry of readdirSync(file).sort()) if (entry !== 'node_modules') add(path.join(file, entry));
  };
  for (const pkg of publicPackages) {
    const named = (pkg.json as { files?: string[] }).files?.filter((entry) => !entry.startsWith('!'));
    if (!named) add(pkg.dir);
    else {
      for (const entry of readdirSync(pkg.dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)))
        if (entry.isFile()) add(path.join(pkg.dir, entry.name));
      for (const entry of named) add(path.join(pkg.dir, entry));
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** Drops cache entries of other contents older than an hour (a run still copying from one is done by then). */
function pruneCache(cacheRoot: string, keep: string): void {
  for (const entry of readdirSync(cacheRoot)) {
    const dir = path.join(cacheRoot, entry);
    if (dir !== keep && Date.now() - statSync(dir).mtimeMs > 3_600_000) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The environment of a consumer's shell: this process's, without what npm, turbo and vitest set for a
 * workspace script (`npm_config_local_prefix` would point npm at this checkout), but with npm's cache,
 * registry and user configuration as this machine has them.
 */
export const consumerEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(npm_|turbo_|vitest|tinypool)/i.test(name) || /^npm_config_(cache|registry|userconfig)$/i.test(name),
    ),
  ),
  NODE_ENV: undefined,
  NODE_OPTIONS: undefined,
  INIT_CWD: undefined,
};

/**
 * Makes `project` depend on the tarballs (those named in `dependOn`, by default all) and on `others` (from
 * the registry), and installs them. The project's package.json is created as an ESM project unless one is
 * there already (a reader's `npm init -y` project keeps its own fields). Published packages depend on each
 * other by version, so `overrides` points every one of them at its tarball.
 */
export async function installTarballs(
  project: string,
  tarballs: Map<string, string>,
  others: Record<string, string> = {},
  dependOn: Iterable<string> = tarballs.keys(),
): Promise<void> {
  mkdirSync(project, { recursive: true });
  const manifest = path.join(project, 'package.json');
  const existing = existsSync(manifest)
    ? (JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>)
    : { name: path.basename(project), private: true, type: 'module' };
  const ours = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  const direct = Object.fromEntries([...dependOn].map((name) => [name, ours[name]!]));
  writeFileSync(
    manifest,
    JSON.stringify(
      {
        ...existing,
        dependencies: { ...(existing.dependencies as Record<string, string> | undefined), ...others, ...direct },
        overrides: ours,
      },
      null,
      2,
    ),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
    cwd: project,
    env: consumerEnv,
  });
}

/** Public packages missing from a workspace's devDependencies (turbo builds a test's devDependencies before it runs). */
export function missingFromDevDependencies(packageJson: URL): string[] {
  const own = JSON.parse(readFileSync(packageJson, 'utf8')) as { devDependencies?: Record<string, string> };
  return publicPackages.map((p) => p.json.name).filter((name) => !own.devDependencies?.[name]);
}
