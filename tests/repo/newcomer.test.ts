// The root README's own commands, run as written in a scratch clone of this commit (a newcomer's first hour):
// `npm ci`, both command-line tools in the workspace before any build, `npm start` to its round trip (and the
// compliance CLI against that server), `npm run pack`, and the install line it prints, used by a project
// outside the repository that validates a payload with @openresponses/zod. Uncommitted changes are not in
// the clone: this tests HEAD.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { consumerEnv } from '../../test-support/tarballs.js';
import { removeInBackground } from '../../test-support/temp-folder.js';
import { checkoutTurboCache } from '../../test-support/turbo-cache.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const version = (
  JSON.parse(readFileSync(path.join(repoRoot, 'packages/server/package.json'), 'utf8')) as {
    version: string;
  }
).version;

const work = mkdtempSync(path.join(tmpdir(), 'openresponses-newcomer-'));
const clone = path.join(work, 'openresponses-typescript');
const consumer = path.join(work, 'my-project');
// Removing a fresh node_modules takes minutes on a loaded machine: the removal runs on after the test.
afterAll(() => removeInBackground(work));

/**
 * The environment of a newcomer's shell (a consumer's: none of the variables npm, turbo and vitest set for
 * this test). The clone's builds use this checkout's turbo cache: `npm test` has built every package of this
 * commit before this test (they are its devDependencies), and the same inputs build the same outputs; a cold
 * build of every package adds about 4 minutes on a loaded 2-core machine. That needs the same task hashes in
 * the clone, which has generated its code and synced its documents by then, as in `npm test`, which hashed
 * every task before writing either: turbo.json keys them by what determines them (the manifest's sha256s and
 * the generator, through `//#generate`), never by the files themselves.
 */
const env: NodeJS.ProcessEnv = { ...consumerEnv, TURBO_CACHE_DIR: checkoutTurboCache(repoRoot) };

const timings: Record<string, number> = {};
/** Runs one command line as a newcomer types it (through the shell), timed; answers its stdout. */
function run(step: string, command: string, cwd = clone): string {
  const started = performance.now();
  try {
    return execFileSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    throw new Error(`${command} failed:\n${stdout}\n${stderr}`.slice(-6000));
  } finally {
    timings[step] = Math.round(performance.now() - started);
  }
}

/**
 * Each task `npm run build` would run in the clone, with the hash turbo keys its cache by. Turbo hashes every
 * task's inputs before it runs any: a file that the run itself writes (generated code, synced documents) must
 * not be an input, or the hashes `npm test` computed on its fresh checkout are never those of a later build.
 */
function buildHashes(step: string): Record<string, string> {
  const plan = run(step, 'npx turbo run build --dry=json');
  const { tasks } = JSON.parse(plan.slice(plan.indexOf('{'))) as { tasks: Array<{ taskId: string; hash: string }> };
  return Object.fromEntries(tasks.map((task) => [task.taskId, task.hash]));
}

/** `npm start` in its own process group, until the demo's last line; answers the output so far and a stop. */
async function npmStart(): Promise<{ output: string; stop: () => void }> {
  const started = performance.now();
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: clone,
    env: { ...env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {}
  };
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (/The server keeps running on/.test(output)) resolve();
        if (/The demo failed/.test(output)) reject(new Error(output));
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
    });
  } catch (error) {
    stop();
    throw error;
  }
  timings['npm start (to the end of the demo)'] = Math.round(performance.now() - started);
  return { output, stop };
}

test('a newcomer runs the README as written: clone, npm ci, the CLIs, npm start, npm run pack, an install outside', async () => {
  // The commands this test types are the README's.
  for (const command of [
    'npm ci && npm start',
    'npx openresponses-server --help',
    'npx openresponses-compliance --help',
    '`npm run pack`',
  ])
    expect(readme).toContain(command);

  run('git clone', `git clone --quiet ${JSON.stringify(repoRoot)} ${JSON.stringify(clone)}`, work);
  run(
    'git checkout',
    `git checkout --quiet ${execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim()}`,
  );
  // ../shared/openapi beside the clone, as the README describes, so the spec documents need no download:
  // this checkout's own ../shared/openapi, or else the documents its last sync verified (same layout).
  const shared = path.resolve(repoRoot, '..', 'shared', 'openapi');
  mkdirSync(path.join(work, 'shared'));
  symlinkSync(
    existsSync(shared) ? shared : path.join(repoRoot, 'openapi/documents'),
    path.join(work, 'shared/openapi'),
  );

  run('npm ci', 'npm ci --prefer-offline --no-audit --no-fund');
  // Right after npm ci, before any build: the bin shims run the sources (generating what they need first).
  expect(existsSync(path.join(clone, 'packages/server/dist'))).toBe(false);
  const freshHashes = buildHashes('turbo run build --dry=json (fresh clone)');
  expect(run('npx openresponses-server --version (sources)', 'npx openresponses-server --version').trim()).toBe(
    version,
  );
  expect(run('npx openresponses-compliance --version (sources)', 'npx openresponses-compliance --version').trim()).toBe(
    version,
  );

  const started = await npmStart();
  let saved: unknown;
  try {
    const { output } = started;
    expect(output).toMatch(/^Store: memory \(this process only\)$/m);
    expect(output).toContain("Round-trip demo (stored in this server's own memory store):");
    expect(output).toContain('tools ran: get_weather(Lisbon), get_time(Lisbon)');
    expect(output).toContain('model: Your name is Ada.');
    // The banner's own curl line, through fetch: its answer is the payload the project outside validates.
    const url = /^Open Responses server on (http:\/\/\S+)\/v1\/responses/m.exec(output)![1]!;
    const key = /^API key: (\S+)$/m.exec(output)![1]!;
    const body = /-d '(\{.*\})'$/m.exec(output)![1]!;
    const answer = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    expect(answer.status).toBe(200);
    saved = await answer.json();
    // The compliance README: a default run against the reference server is 49 passed and 1 skipped.
    const report = run(
      'npx openresponses-compliance against npm start',
      `npx openresponses-compliance --base-url ${url}/v1 --api-key ${key}`,
    );
    expect(report).toContain('49 passed, 0 failed, 1 skipped');
  } finally {
    started.stop();
  }

  // The clone has generated its code and synced its documents by now (npm start): the builds' hashes are still
  // those of the fresh clone, so the builds of `npm test` serve this one.
  expect(buildHashes('turbo run build --dry=json (after npm start)')).toEqual(freshHashes);
  const packed = run('npm run pack (build, then pack)', 'npm run pack');
  expect(run('npx openresponses-server --version (built)', 'npx openresponses-server --version').trim()).toBe(version);
  const zodLine = new RegExp(`^ {4}(npm install \\S*openresponses-zod-${version}\\.tgz .*)$`, 'm').exec(packed)?.[1];
  expect(zodLine, packed).toBeDefined();
  // The README's example is that line, with the clone's path.
  expect(readme).toContain(zodLine!.replaceAll(clone, '<clone>'));

  // A project outside the repository, installing the tarballs with the printed line.
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'my-project', private: true, type: 'module' }),
  );
  run('npm install of the tarballs', `${zodLine} --prefer-offline --no-audit --no-fund`, consumer);
  writeFileSync(path.join(consumer, 'response.json'), JSON.stringify(saved));
  writeFileSync(
    path.join(consumer, 'check.js'),
    [
      "import { readFileSync } from 'node:fs';",
      "import { ResponseResourceSchema, validate } from '@openresponses/zod';",
      "const response = JSON.parse(readFileSync('response.json', 'utf8'));",
      'const good = validate(ResponseResourceSchema, response);',
      "const bad = validate(ResponseResourceSchema, { ...response, output: 'not a list' });",
      'console.log(JSON.stringify({ good: good.success, bad: bad.success ? [] : bad.issues.map((i) => i.path) }));',
    ].join('\n'),
  );
  expect(JSON.parse(run('node check.js', 'node check.js', consumer))).toEqual({ good: true, bad: ['output'] });
  expect(readFileSync(path.join(consumer, 'package.json'), 'utf8')).toContain('openresponses-zod');

  const total = Object.values(timings).reduce((sum, ms) => sum + ms, 0);
  console.log(
    `newcomer steps (ms): ${JSON.stringify(timings)}; total ${total}${env.TURBO_CACHE_DIR ? ` (turbo cache ${env.TURBO_CACHE_DIR})` : ' (cold build)'}`,
  );
}, 1_200_000);
