// The turbo cache of this checkout, for tests that run turbo in a clone or a copy of the repository: tasks whose
// inputs the copy did not change (the spec sync and the generated code, the builds of an unchanged clone) are
// replayed from what `npm test` has just made instead of being run again.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The checkout's turbo cache folder, or undefined when it has none yet. */
export function checkoutTurboCache(repoRoot: string): string | undefined {
  // A worktree's builds are cached in its main checkout (turbo's root is the repository's common directory).
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  const cache = path.join(path.dirname(common), '.turbo/cache');
  return existsSync(cache) ? cache : undefined;
}
