// The test configs' global setup (test-support/temp-folder.ts): one temporary folder per run, which fails the
// run when a test leaves something in it. Run here nested in this run's own folder.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import setup, { removeInBackground } from '../../test-support/temp-folder.js';

afterEach(() => {
  process.exitCode = undefined;
});

test('a run that leaves a folder behind fails, names it, and its temporary folder is removed all the same', () => {
  const outer = tmpdir();
  const teardown = setup();
  const run = tmpdir();
  expect(path.dirname(run)).toBe(outer);
  expect([process.env.TMP, process.env.TEMP]).toEqual([run, run]);
  const left = mkdtempSync(path.join(tmpdir(), 'left-behind-'));
  writeFileSync(path.join(left, 'file'), 'x');
  expect(teardown).toThrow(`the tests left ${path.basename(left)} in their temporary folder`);
  // vitest only logs what a global teardown throws: the exit code is what fails the run.
  expect(process.exitCode).toBe(1);
  expect(tmpdir()).toBe(outer);
  expect(existsSync(run)).toBe(false);
});

test('a run that removes what it made passes, even while a large folder is still being removed', () => {
  const teardown = setup();
  const run = tmpdir();
  const large = mkdtempSync(path.join(tmpdir(), 'large-'));
  mkdirSync(path.join(large, 'node_modules/a'), { recursive: true });
  removeInBackground(large);
  expect(existsSync(large)).toBe(false);
  expect(teardown).not.toThrow();
  expect(process.exitCode).toBeUndefined();
  expect(existsSync(run)).toBe(false);
});
