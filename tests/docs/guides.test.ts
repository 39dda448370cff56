// The guides in docs/ as a reader uses them. Every ```ts block is type-checked against the workspace packages
// as they are published (their built declarations, which turbo builds before this test): each block is its
// own module in .tmp/, compiled in one tsc run with the repository's compiler options. Every package a block
// imports must be on one of its guide's `npm install` lines. The self-contained guides (no fixed port, no
// upstream, no Redis) are then run block by block as docs/README.md tells a reader to: in a new `npm init -y`
// project outside the repository, which installs the packed tarballs and exactly what those guides' install
// lines name (one install for all of them), with `npx tsx`. JSON routing files are parsed with the gateway's
// schema.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gatewayConfigSchema } from '@openresponses/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { consumerEnv, installTarballs, missingFromDevDependencies, packAll } from '../../test-support/tarballs.js';
import { codeBlocks, importedPackages, installedPackages, repoRoot } from './markdown.js';

const run = promisify(execFile);
const docsDir = path.join(repoRoot, 'docs');
const tmp = path.join(repoRoot, 'tests/docs/.tmp/blocks');

/** Guides whose ts blocks run as they are (the others need a fixed port, an upstream model or Redis). */
const RUN = ['validate-payloads.md', 'stream-events.md', 'test-your-server.md', 'mount-and-connect.md'];

const guides = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .sort();
const read = (guide: string): string => readFileSync(path.join(docsDir, guide), 'utf8');

interface Block {
  guide: string;
  line: number;
  file: string;
}

const blocks: Block[] = [];

function writeBlocks(): void {
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  for (const guide of guides)
    for (const block of codeBlocks(readFileSync(path.join(docsDir, guide), 'utf8'))) {
      if (block.lang !== 'ts' && block.lang !== 'typescript') continue;
      const file = path.join(tmp, `${guide.replace(/\.md$/, '')}.L${block.line}.ts`);
      // `export {}` makes every block a module (top-level await, no name clashes between blocks).
      writeFileSync(file, `${block.code}\nexport {};\n`);
      blocks.push({ guide, line: block.line, file });
    }
  // A block that must not compile: proves the check reports errors (and maps them back to the guide).
  writeFileSync(path.join(tmp, 'canary.L1.ts'), "const count: number = 'three';\nexport { count };\n");
  writeFileSync(
    path.join(tmp, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../../tsconfig.base.json',
      // The declarations a reader's project reads, not the sources: checking the server's sources once more
      // was two thirds of this run (35 s of CPU against 12.5 s), and the packages' typecheck tasks check them.
      compilerOptions: { noEmit: true, types: ['node'], noUnusedLocals: false, customConditions: [] },
      include: ['*.ts'],
    }),
  );
}

let diagnostics: string[] = [];

beforeAll(async () => {
  writeBlocks();
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', path.join(tmp, 'tsconfig.json'), '--pretty', 'false'], {
    cwd: tmp,
  }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
  // `validate-payloads.L25.ts(3,7): error TS2322: …` -> `docs/validate-payloads.md:27: error TS2322: …`
  diagnostics = result
    .replace(/\n\s+/g, ' ') // an error's continuation lines onto its first
    .split('\n')
    .filter((l) => l.includes('error TS'))
    .map((l) => {
      const m = /([\w-]+)\.L(\d+)\.ts\((\d+),\d+\): (.*)/.exec(l);
      return m ? `docs/${m[1]}.md:${Number(m[2]) + Number(m[3]) - 1}: ${m[4]}` : l;
    });
}, 300_000);

test('the guides have ts blocks, and every guide is listed in docs/README.md and in the root README', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  const index = read('README.md');
  const root = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  for (const guide of guides.filter((g) => g !== 'README.md')) {
    expect(index).toContain(`](${guide})`);
    expect(root).toContain(`](docs/${guide})`);
  }
});

test('every ts block in the guides type-checks', () => {
  expect(diagnostics.filter((d) => !d.startsWith('docs/canary.md'))).toEqual([]);
});

test('the type check catches a block that does not compile', () => {
  expect(diagnostics.filter((d) => d.startsWith('docs/canary.md'))).toEqual([
    "docs/canary.md:1: error TS2322: Type 'string' is not assignable to type 'number'.",
  ]);
});

/** `docs/<guide>:<line>: imports <package>, …` for every package a ts block imports that no install line names. */
function uninstalledImports(markdown: string, where: string): string[] {
  const installed = new Set(installedPackages(markdown));
  return codeBlocks(markdown)
    .filter((block) => block.lang === 'ts' || block.lang === 'typescript')
    .flatMap((block) =>
      importedPackages(block.code)
        .filter((name) => !installed.has(name))
        .map((name) => `${where}:${block.line}: imports ${name}, which no npm install line of the guide names`),
    );
}

test("every package a guide's ts blocks import is on one of the guide's npm install lines", () => {
  expect(guides.flatMap((guide) => uninstalledImports(read(guide), `docs/${guide}`))).toEqual([]);
});

test('the install-line check catches a block that imports a package its guide does not install', () => {
  const guide = [
    '```sh',
    'npm install --save-dev @openresponses/zod   # zod left out',
    '```',
    '',
    '```ts',
    "import { z } from 'zod';",
    "import { validate } from '@openresponses/zod/mini';",
    "import { readFileSync } from 'node:fs';",
    '```',
  ].join('\n');
  expect(uninstalledImports(guide, 'canary.md')).toEqual([
    'canary.md:6: imports zod, which no npm install line of the guide names',
  ]);
});

/**
 * The reader's project set-up, read from docs/README.md's sh block: its folder, the `npm init` / `npm pkg`
 * commands (run as written), and the tool the blocks run with (`npx <runner> example.ts`). Its install
 * line joins the guides' own. A step this does not know fails: the test must follow what the page says.
 */
function readerSetup(): { folder: string; commands: string[]; runner: string } {
  const setup = { folder: '', commands: [] as string[], runner: '' };
  const steps = codeBlocks(read('README.md'))
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => block.code.split('\n'))
    .flatMap((line) => line.replace(/(^|\s)#.*$/, '').split('&&'))
    .map((step) => step.trim())
    .filter((step) => step !== '');
  for (const step of steps) {
    const folder = /^(?:mkdir|cd) (\S+)$/.exec(step)?.[1];
    const runner = /^npx (\S+) example\.ts$/.exec(step)?.[1];
    if (folder) setup.folder = folder;
    else if (runner) setup.runner = runner;
    else if (/^npm (init|pkg) /.test(step)) setup.commands.push(step);
    else if (!/^npm install /.test(step))
      throw new Error(`docs/README.md: a set-up step this test does not know: ${step}`);
  }
  return setup;
}

describe('the self-contained guides, run as a reader runs them', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'openresponses-guides-'));
  const setup = readerSetup();
  const project = path.join(work, setup.folder);

  beforeAll(async () => {
    const started = performance.now();
    mkdirSync(project);
    mkdirSync(path.join(work, 'tarballs'));
    const tarballs = await packAll(path.join(work, 'tarballs'));
    const packed = performance.now();
    for (const command of setup.commands) await run('sh', ['-c', command], { cwd: project, env: consumerEnv });
    // One install for every runnable guide: their install lines, joined with the set-up's (`tsx`).
    const wanted = [
      ...new Set([...installedPackages(read('README.md')), ...RUN.flatMap((g) => installedPackages(read(g)))]),
    ];
    const fromRegistry = Object.fromEntries(
      wanted.filter((name) => !tarballs.has(name)).map((name) => [name, 'latest']),
    );
    await installTarballs(
      project,
      tarballs,
      fromRegistry,
      wanted.filter((name) => tarballs.has(name)),
    );
    const ms = (from: number) => Math.round(performance.now() - from);
    console.log(
      `reader's project: npm pack ${ms(started) - ms(packed)} ms, npm init and one npm install ${ms(packed)} ms`,
    );
  }, 600_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test('the project is the one docs/README.md sets up: npm init -y, an ES module package, outside the repository', () => {
    expect(setup.commands).toEqual(['npm init -y', 'npm pkg set type=module']);
    expect(setup.runner).toBe('tsx');
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: setup.folder, version: '1.0.0', type: 'module' });
    expect(path.relative(repoRoot, project).startsWith('..')).toBe(true);
  });

  for (const guide of RUN)
    test(`the ts blocks of ${guide} run with npx ${setup.runner}`, async () => {
      const ran = codeBlocks(read(guide)).filter((b) => b.lang === 'ts' || b.lang === 'typescript');
      expect(ran.length).toBeGreaterThan(0);
      for (const block of ran) {
        const where = `docs/${guide}:${block.line}`;
        // The block saved as the reader saves it, as it is.
        const file = path.join(project, `${guide.replace(/\.md$/, '')}.L${block.line}.ts`);
        writeFileSync(file, block.code);
        const { stdout, stderr } = await run(path.join(project, 'node_modules/.bin', setup.runner), [file], {
          cwd: project,
          env: consumerEnv,
          timeout: 120_000,
        }).catch((error: { stderr?: string; message: string }) => {
          throw new Error(`${where} failed: ${error.stderr || error.message}`);
        });
        expect(stdout, where).not.toBe('');
        // Nothing on stderr but the server's start-up notice that its encryption key is generated (a reader sees it too).
        expect(stderr.replace(/^openresponses-server: no encryption key configured;.*\n/m, ''), where).toBe('');
      }
    });
});

test('every public package is a devDependency of the docs tests (turbo builds them before they are packed)', () => {
  expect(missingFromDevDependencies(new URL('./package.json', import.meta.url))).toEqual([]);
});

test('every JSON routing file in the guides is a valid gateway config', () => {
  let checked = 0;
  for (const guide of guides)
    for (const block of codeBlocks(readFileSync(path.join(docsDir, guide), 'utf8'))) {
      if (block.lang !== 'json' || !block.code.includes('"routes"')) continue;
      const parsed = gatewayConfigSchema.safeParse(JSON.parse(block.code));
      expect(parsed.error?.issues ?? [], `docs/${guide}:${block.line}`).toEqual([]);
      checked++;
    }
  expect(checked).toBeGreaterThan(0);
});
