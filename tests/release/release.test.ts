// The release path end to end, as a maintainer runs it, in a temporary copy of the repository:
// `npm run version-packages` (changeset version + lock file), `npm run release -- --registry <Verdaccio>`
// (build + changeset publish), then a scratch project outside the monorepo installs every package from that
// registry and runs a small program on each, and the two CLIs by their npx names.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import parseChangeset from '@changesets/parse';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { copyRepository, type RepoCopy, repoRoot } from './repo-copy.js';
import { checkoutTurboCache } from '../../test-support/turbo-cache.js';
import { type LocalRegistry, startLocalRegistry } from './verdaccio.js';

const SCOPE = '@openresponses';
const timings: Record<string, number> = {};
async function timed<T>(phase: string, work: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[phase] = Math.round(performance.now() - started);
  }
}

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
}
const publicPackages = (root: string): PackageJson[] =>
  readdirSync(path.join(root, 'packages'))
    .map((dir) => JSON.parse(readFileSync(path.join(root, 'packages', dir, 'package.json'), 'utf8')) as PackageJson)
    .filter((json) => !json.private);

let registry: LocalRegistry;
let copy: RepoCopy;
let scratch: string;
/** npm settings of this process (npm run sets them) must not leak into the copy or the scratch project. */
const environment = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
);
const before = new Map(publicPackages(repoRoot).map((p) => [p.name, p.version]));

beforeAll(async () => {
  const started = performance.now();
  registry = await timed('start Verdaccio', () => startLocalRegistry(SCOPE));
  copy = await timed('copy the repository', async () => {
    const repo = copyRepository('openresponses-release', {
      environment: {
        ...environment,
        // The case: an upper-case registry setting, which changeset publish alone would ignore.
        NPM_CONFIG_REGISTRY: registry.url,
        // The release's build replays the spec sync and the generated code from this checkout's cache (their
        // inputs are the same here; the packages' builds are not: their versions moved), and writes nothing
        // there. Where the checkout has no cache, it runs them.
        TURBO_CACHE_DIR: checkoutTurboCache(repoRoot),
        TURBO_CACHE: 'local:r',
      },
      withBuilds: true,
    });
    writeFileSync(path.join(repo.dir, '.npmrc'), `registry=${registry.url}\n${registry.authLine}\n`);
    await repo.run('git', ['init', '-q']);
    await repo.run('git', ['add', '-A']);
    await repo.run('git', [
      '-c',
      'user.name=release-test',
      '-c',
      'user.email=release-test@invalid',
      'commit',
      '-qm',
      'base',
    ]);
    return repo;
  });
  scratch = mkdtempSync(path.join(tmpdir(), 'openresponses-scratch-'));
  timings.setup = Math.round(performance.now() - started);
});

afterAll(async () => {
  copy?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await registry?.close();
  console.log(`release test phases (ms): ${JSON.stringify(timings)}`);
});

test('version-packages moves every public package to the next minor (or patch), one version, and keeps the lock file in step', async () => {
  await timed('version-packages', () =>
    // Offline: keeping the lock file in step needs nothing from any registry.
    copy.run('npm', ['run', 'version-packages'], { env: { ...copy.environment, npm_config_offline: 'true' } }),
  );
  const after = publicPackages(copy.dir);
  const versions = new Set(after.map((p) => p.version));
  expect(versions.size, 'the fixed group gives every public package one version').toBe(1);
  const [version] = versions;
  for (const pkg of after) {
    const expected = nextVersion(before.get(pkg.name)!, pendingKind());
    expect(`${pkg.name} ${before.get(pkg.name)} -> ${version}`).toBe(
      `${pkg.name} ${before.get(pkg.name)} -> ${expected}`,
    );
    for (const [dependency, range] of Object.entries(pkg.dependencies ?? {}))
      if (dependency.startsWith(`${SCOPE}/`)) expect(range, `${pkg.name} -> ${dependency}`).toBe(version);
  }
  const lock = copy.json<{ packages: Record<string, { name?: string; version?: string }> }>('package-lock.json');
  for (const pkg of after) {
    const entry = Object.values(lock.packages).find((p) => p.name === pkg.name);
    expect(entry?.version, `package-lock.json entry of ${pkg.name}`).toBe(version);
  }
  expect(readdirSync(path.join(copy.dir, '.changeset')).filter((f) => f.endsWith('.md'))).toEqual(['README.md']);
  expect(readFileSync(path.join(copy.dir, 'packages/types/CHANGELOG.md'), 'utf8')).toContain(`## ${version}`);
  // `npm ci` accepts the updated lock file (checked without installing).
  await copy.run('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund']);
});

test('release builds and publishes every public package to the registry it names', async () => {
  const output = await timed('release (build + publish)', () =>
    copy.run('npm', ['run', 'release', '--', '--registry', registry.url]),
  );
  expect(output).toContain(`release: published to ${registry.url}`);
  for (const pkg of publicPackages(copy.dir)) {
    const response = await fetch(`${registry.url}${pkg.name.replace('/', '%2f')}`);
    expect(response.status, pkg.name).toBe(200);
    const packument = (await response.json()) as { 'dist-tags': Record<string, string> };
    expect(packument['dist-tags'].latest, pkg.name).toBe(pkg.version);
  }
});

test('a scratch project outside the monorepo installs every package from the registry and uses each', async () => {
  const packages = publicPackages(copy.dir);
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  // Our scope comes only from Verdaccio; other dependencies from the usual registry (npm's cache first).
  writeFileSync(path.join(scratch, '.npmrc'), `${SCOPE}:registry=${registry.url}\n`);
  await timed('install into the scratch project', () =>
    run('npm', [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      'zod@^4',
      ...packages.map((p) => `${p.name}@${p.version}`),
    ]),
  );
  for (const pkg of packages) {
    const installed = JSON.parse(
      readFileSync(path.join(scratch, 'node_modules', pkg.name, 'package.json'), 'utf8'),
    ) as PackageJson;
    expect(installed.version, pkg.name).toBe(pkg.version);
  }
  writeFileSync(path.join(scratch, 'program.mjs'), PROGRAM);
  const result = await timed('program on every package', async () => JSON.parse(await run('node', ['program.mjs'])));
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'openapi/manifest.json'), 'utf8'));
  expect(result).toEqual({
    types: manifest.latest,
    zod: { valid: true, invalidPath: 'input' },
    server_client: { status: 'completed', text: expect.stringContaining('Ada') },
    events: { problems: [], last: 'response.completed' },
    extensions: 'completed',
    codegen: [{ path: 'Level', change: 'enum value "b" added', direction: 'both', breaking: true }],
    playground: true,
    compliance: 'function',
    store_redis: 'function',
  });
});

test('the CLIs run by their npx names: npx @openresponses/server, npx @openresponses/compliance', async () => {
  await timed('CLIs by npx name', async () => {
    expect((await run('npx', ['@openresponses/compliance', '--version'])).trim()).toBe(
      publicPackages(copy.dir).find((p) => p.name === `${SCOPE}/compliance`)!.version,
    );
    const server = spawn('npx', ['@openresponses/server', '--port', '0', '--api-key', 'scratch-key'], {
      cwd: scratch,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`the server did not start: ${output}`)), 30_000);
        const read = (chunk: Buffer) => {
          output += chunk;
          const match = /on (http:\/\/127\.0\.0\.1:\d+)\/v1\/responses/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        server.stdout.on('data', read);
        server.stderr.on('data', read);
        server.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
      });
      const report = JSON.parse(
        await run('npx', [
          '@openresponses/compliance',
          '--base-url',
          `${url}/v1`,
          '--api-key',
          'scratch-key',
          '--transport',
          'http',
          '--filter',
          'streaming,error-401,previous-response-id',
          '--json',
        ]),
      );
      expect(report.summary).toEqual({ passed: 3, failed: 0, skipped: 0 });
    } finally {
      server.kill('SIGTERM');
    }
  });
});

/** Runs a command in the scratch project (asynchronously: the registry answers from this process). */
function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd: scratch, env: environment, encoding: 'utf8' }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`))
        : resolve(stdout),
    ),
  );
}

/** The largest kind among the pending changesets (none is `major`: the policy keeps 0.x minor). */
function pendingKind(): 'minor' | 'patch' {
  const kinds = readdirSync(path.join(repoRoot, '.changeset'))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .flatMap((f) => parseChangeset(readFileSync(path.join(repoRoot, '.changeset', f), 'utf8')).releases)
    .map((r) => r.type);
  expect(kinds).not.toContain('major');
  return kinds.includes('minor') ? 'minor' : 'patch';
}

/** The next minor or patch of an x.y.z version. */
function nextVersion(version: string, kind: 'minor' | 'patch'): string {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  return kind === 'minor' ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
}

/** One small program over every installed package, printing what each did as JSON. */
const PROGRAM = `
import { SPEC_VERSION } from '@openresponses/types';
import { CreateResponseBodySchema, validate } from '@openresponses/zod';
import { checkStream, decodeSSE } from '@openresponses/events';
import { createRegistry } from '@openresponses/extensions';
import { startServer } from '@openresponses/server/node';
import { createClient } from '@openresponses/client';
import { diffSpecs, readOpenApi } from '@openresponses/codegen';
import { PLAYGROUND_HTML } from '@openresponses/playground';
import { runSuite } from '@openresponses/compliance';
import { RedisResponseStore } from '@openresponses/store-redis';

const result = { types: SPEC_VERSION };
const invalid = validate(CreateResponseBodySchema, { model: 'm', input: 42 });
result.zod = {
  valid: validate(CreateResponseBodySchema, { model: 'm', input: 'Hello' }).success,
  invalidPath: invalid.success ? null : invalid.issues[0].path,
};

const server = await startServer({ apiKeys: ['key'], warn: () => {} });
try {
  const client = createClient({ baseURL: server.url + '/v1', apiKey: 'key' });
  const stream = await client.responses.stream({ model: 'openresponses-deterministic', input: 'Hello! My name is Ada.' });
  let text = '';
  stream.on('response.output_text.delta', (event) => (text += event.delta));
  const final = await stream.finalResponse();
  result.server_client = { status: final.status, text };

  const response = await fetch(server.url + '/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer key' },
    body: JSON.stringify({ model: 'openresponses-deterministic', input: 'Hi', stream: true }),
  });
  const events = [];
  const decoded = decodeSSE(response.body);
  for await (const event of decoded) events.push(event);
  result.events = { problems: checkStream(events, { sawDone: decoded.sawDone }), last: events.at(-1).type };
  result.extensions = createRegistry({}).schemas.ResponseResource.parse(final).status;
} finally {
  await server.close();
}

const document = (values) => ({
  openapi: '3.1.0',
  paths: { '/responses': { post: { responses: { 200: { content: { 'text/event-stream': { schema: { oneOf: [{ $ref: '#/components/schemas/Ping' }] } } } } } } } },
  components: { schemas: { Ping: { type: 'object', properties: { type: { type: 'string', enum: ['ping'] } } }, Level: { type: 'string', enum: values } } },
});
const input = (values) => ({ model: readOpenApi(document(values), { version: 'x', sha256: '0'.repeat(64) }), document: document(values) });
result.codegen = diffSpecs(input(['a']), input(['a', 'b'])).map(({ path, change, direction, breaking }) => ({ path, change, direction, breaking }));
result.playground = PLAYGROUND_HTML.includes('<html');
result.compliance = typeof runSuite;
// Its behaviour needs a Redis server (its own tests run one); here: it installs and loads.
result.store_redis = typeof RedisResponseStore;
console.log(JSON.stringify(result));
`;
