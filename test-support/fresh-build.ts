// A vitest global setup for the suites that start a package's CLI as a child from its build (dist), not from its
// sources through tsx: the child starts in about half the CPU time (tsx's loader hooks see every module). It
// makes sure that build is fresh, so a change to the sources is never tested against an old one. Under turbo
// the suite's `test` task depends on the package's `build` (turbo.json); run any other way (vitest in the
// package's folder), it builds the package and its workspace dependencies through turbo first, and again before
// each re-run in watch mode: cache hits, ~2 s, when nothing changed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  // turbo gives every task it runs its hash in the environment.
  if (process.env.TURBO_HASH) return;
  const root = project.config.root;
  const { name } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string };
  const build = () => {
    const run = spawnSync(
      'npx',
      ['turbo', 'run', 'build', `--filter=${name}...`, '--output-logs=errors-only', '--log-prefix=none'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' },
    );
    if (run.status !== 0) throw new Error(`the build of ${name} its tests start from failed (exit ${run.status})`);
  };
  build();
  // In watch mode a changed source re-runs the tests, not this setup: build before each re-run too.
  project.onTestsRerun(build);
}
