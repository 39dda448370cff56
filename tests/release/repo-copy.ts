// A temporary copy of the repository for tests that change it (spec:add, changeset version, publish): the files
// git tracks or would track, the synced spec documents, and a node_modules of links to this checkout's
// dependencies, except that the workspace's own packages link to the copy's packages.
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeInBackground } from '../../test-support/temp-folder.js';
import { workspacePackages } from '../../test-support/workspaces.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface RepoCopy {
  dir: string;
  /** The environment its commands run with. */
  environment: NodeJS.ProcessEnv;
  /**
   * Runs a command in the copy (or `cwd` inside it) and resolves with its stdout; rejects with its output on
   * failure. Asynchronous, so that servers in this process (the test registry) keep answering meanwhile.
   */
  run(command: string, args: string[], options?: { cwd?: string; env?: NodeJS.ProcessEnv }): Promise<string>;
  json<T = Record<string, unknown>>(file: string): T;
  /** Removes the copy, in a process of its own that may finish after the test. */
  remove(): void;
}

export interface CopyOptions {
  environment?: NodeJS.ProcessEnv;
  /**
   * Also copy each package's `dist/` with its `.tsbuildinfo`, as a maintainer's checkout has them after a build:
   * the copy's build is then incremental (tsc checks that nothing changed instead of compiling everything).
   */
  withBuilds?: boolean;
}

/**
 * The copy's node_modules: this checkout's dependencies, with the workspace's own packages pointing at the copy's.
 * A copy that keeps the builds gets a tree of hard links: its files then have paths inside the copy, as in
 * the checkout, so the `.tsbuildinfo` files (which name every file a build read, relative to itself) still
 * match and tsc rebuilds incrementally. Through symlinks TypeScript would see each dependency at its real path
 * in the checkout, take every declaration file for a new one and check and emit everything again (~100 s of
 * CPU). Where hard links cannot be made (another filesystem), symlinks: the same build, only slower.
 */
function linkDependencies(dir: string, forIncrementalBuilds: boolean): void {
  const modules = path.join(dir, 'node_modules');
  if (forIncrementalBuilds)
    try {
      hardLinkTree(path.join(repoRoot, 'node_modules'), modules);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      rmSync(modules, { recursive: true, force: true });
    }
  mkdirSync(path.join(modules, '@openresponses'), { recursive: true });
  const own = new Set(workspacePackages(repoRoot).map((p) => p.name));
  for (const entry of readdirSync(path.join(repoRoot, 'node_modules'))) {
    if (entry === '@openresponses') continue;
    symlinkSync(path.join(repoRoot, 'node_modules', entry), path.join(modules, entry));
  }
  for (const entry of readdirSync(path.join(repoRoot, 'node_modules/@openresponses'))) {
    if (own.has(`@openresponses/${entry}`)) continue;
    symlinkSync(path.join(repoRoot, 'node_modules/@openresponses', entry), path.join(modules, '@openresponses', entry));
  }
  for (const pkg of workspacePackages(dir)) symlinkSync(pkg.dir, path.join(modules, pkg.name));
}

/**
 * `from` recreated at `to`: folders made, files hard-linked, symlinks copied as they are (npm's are relative,
 * so the workspace's packages resolve to the copy's own).
 */
function hardLinkTree(from: string, to: string): void {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) hardLinkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkSync(source, target);
  }
}

export function copyRepository(
  prefix: string,
  { environment = process.env, withBuilds = false }: CopyOptions = {},
): RepoCopy {
  const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    try {
      cpSync(path.join(repoRoot, file), path.join(dir, file));
    } catch (error) {
      // A file deleted in the working tree but still in the index is simply not copied.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  cpSync(path.join(repoRoot, 'openapi/documents'), path.join(dir, 'openapi/documents'), { recursive: true });
  if (withBuilds)
    for (const pkg of workspacePackages(repoRoot)) {
      const built = path.join(pkg.dir, 'dist');
      if (existsSync(built)) cpSync(built, path.join(dir, path.relative(repoRoot, built)), { recursive: true });
    }

  linkDependencies(dir, withBuilds);

  const run: RepoCopy['run'] = (command, args, options = {}) =>
    new Promise((resolve, reject) => {
      execFile(
        command,
        args,
        {
          env: environment,
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
          ...options,
          cwd: options.cwd ? path.resolve(dir, options.cwd) : dir,
        },
        (error, stdout, stderr) => {
          if (error)
            reject(
              new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`, {
                cause: error,
              }),
            );
          else resolve(stdout);
        },
      );
    });
  return {
    dir,
    environment,
    run,
    json: (file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8')),
    // Unlinking a tree of hard links (56,000 entries) takes 12 s on a loaded machine, nearly all of it waiting on
    // the filesystem: the removal runs on after the test.
    remove: () => removeInBackground(dir),
  };
}
