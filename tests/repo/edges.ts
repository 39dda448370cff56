// Tools at the edges (DESIGN.md): bench/ and scripts/ use the packages as a user does, by their published
// names. This lists every import from a tool file that reaches into a workspace package's `src/` or `test/`,
// by a relative path or a deep bare specifier.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { workspacePackages } from '../../test-support/workspaces.js';

/** Folders holding a workspace package (their `src/` and `test/` are private to that package). */
const PACKAGE_ROOTS = ['packages', 'examples', 'tests'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(c|m)?[jt]sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `packages/<name>/src/...` (or test/) of a path inside the repository, or undefined. */
function privatePart(repoRoot: string, file: string): string | undefined {
  const parts = path.relative(repoRoot, file).split(path.sep);
  return parts.length > 3 && PACKAGE_ROOTS.includes(parts[0]!) && (parts[2] === 'src' || parts[2] === 'test')
    ? parts.slice(0, 3).join('/')
    : undefined;
}

export interface EdgeViolation {
  file: string;
  specifier: string;
  reaches: string;
}

/** Imports (static, dynamic, re-exports) from files under `folders` that reach another package's src/ or test/. */
export function edgeViolations(repoRoot: string, folders: string[]): EdgeViolation[] {
  const files = folders.flatMap((folder) => sourceFiles(path.join(repoRoot, folder)));
  return files.flatMap((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    return importedFiles.flatMap(({ fileName: specifier }) => {
      const reaches = specifier.startsWith('.')
        ? privatePart(repoRoot, path.resolve(path.dirname(file), specifier))
        : /^(@[^/]+\/)?[^/]+\/(.+\/)?(src|test)(\/|$)/.test(specifier)
          ? specifier
          : undefined;
      return reaches ? [{ file: path.relative(repoRoot, file), specifier, reaches }] : [];
    });
  });
}

/**
 * The workspace packages that files under `folders` import by name, sorted. A tool checked against the packages'
 * built declarations must declare each (turbo builds a workspace's dependencies before its typecheck).
 */
export function workspaceImports(repoRoot: string, folders: string[]): string[] {
  const names = new Set(workspacePackages(repoRoot).map((pkg) => pkg.name));
  const files = folders.flatMap((folder) => sourceFiles(path.join(repoRoot, folder)));
  const imported = files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map(({ fileName }) => fileName.match(/^(@[^/]+\/)?[^/]+/)?.[0] ?? '')
      .filter((name) => names.has(name)),
  );
  return [...new Set(imported)].sort();
}
