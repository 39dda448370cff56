// A CLI child a test starts is stopped after that test, in whichever file of a worker it runs (test/setup.ts):
// hooks a helper module registered itself ran only in the first file a worker loaded.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { expect, test } from 'vitest';
import { startCli } from './cli-process.js';

let started: ChildProcess | undefined;

test('a test starts the CLI', async () => {
  started = (await startCli(['--port', '0', '--api-key', 'k'])).child;
  expect(started.exitCode).toBe(null);
});

test('the next test finds it stopped', async () => {
  const child = started!;
  if (child.exitCode === null && child.signalCode === null)
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  // The CLI ends on SIGTERM by closing the server and exiting (code 0), not by the signal.
  expect({ exitCode: child.exitCode, signalCode: child.signalCode }, 'the CLI child after its test').not.toEqual({
    exitCode: null,
    signalCode: null,
  });
});
