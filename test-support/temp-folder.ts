// One temporary folder per test run, as a vitest global setup: it is made in the system's temporary folder and
// TMPDIR, TMP and TEMP point at it, so the test workers, the libraries they load and every child process that
// inherits the environment make their temporary files there. At the end of the run it is removed, and the run
// fails if a test left anything in it: a test removes what it makes in `afterAll` or `finally`, pass or fail.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

const VARIABLES = ['TMPDIR', 'TMP', 'TEMP'] as const;
const REMOVING = '.removing';

export default function setup(): () => void {
  const system = tmpdir();
  const saved = VARIABLES.map((name) => process.env[name]);
  const run = mkdtempSync(path.join(system, 'openresponses-tests-'));
  // tsx keeps its transform cache in <tmpdir>/tsx-<uid> across runs: the run's folder links to the system's
  // one, so the children started through tsx do not compile everything again each run.
  const tsxCache = path.join(system, `tsx-${process.geteuid?.() ?? userInfo().username}`);
  mkdirSync(tsxCache, { recursive: true });
  symlinkSync(tsxCache, path.join(run, path.basename(tsxCache)));
  const linked = new Set(readdirSync(run));
  for (const name of VARIABLES) process.env[name] = run;
  return () => {
    VARIABLES.forEach((name, i) => {
      if (saved[i] === undefined) delete process.env[name];
      else process.env[name] = saved[i];
    });
    const left = leftovers(run, linked);
    removeInBackground(run);
    if (left.length > 0) {
      process.exitCode = 1; // vitest logs an error thrown here but still exits 0.
      throw new Error(
        `the tests left ${left.join(', ')} in their temporary folder (TMPDIR): remove what a test makes in afterAll or finally`,
      );
    }
  };
}

/** What is in the run's folder but the links made at its start and what is being removed. */
export function leftovers(run: string, linked: ReadonlySet<string>): string[] {
  return readdirSync(run).filter((name) => !linked.has(name) && !name.endsWith(REMOVING));
}

/**
 * Removes a folder without waiting for it (unlinking a copy of the repository takes ~12 s on a loaded machine):
 * renamed at once, so the end of the run does not count it, then `rm -rf` runs on after the test.
 */
export function removeInBackground(dir: string): void {
  if (!existsSync(dir)) return;
  const doomed = `${dir}${REMOVING}`;
  renameSync(dir, doomed);
  spawn('rm', ['-rf', doomed], { detached: true, stdio: 'ignore' }).unref();
}
