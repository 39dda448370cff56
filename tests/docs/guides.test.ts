// Every ```ts block of the guides in docs/ is type-checked against the workspace packages (their sources,
// through the `@openresponses/source` condition): each block is its own module in .tmp/, compiled in one
// tsc run with the repository's compiler options. The self-contained guides (no fixed port, no upstream,
// no Redis) are also run, block by block. JSON routing files are parsed with the gateway's schema.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gatewayConfigSchema } from '@openresponses/server';
import { beforeAll, expect, test } from 'vitest';
import { codeBlocks, repoRoot } from './markdown.js';

const run = promisify(execFile);
const docsDir = path.join(repoRoot, 'docs');
const tmp = path.join(repoRoot, 'tests/docs/.tmp/blocks');

/** Guides whose ts blocks run as they are (the others need a fixed port, an upstream model or Redis). */
const RUN = ['validate-payloads.md', 'stream-events.md', 'test-your-server.md', 'mount-and-connect.md'];

const guides = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .sort();

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
      compilerOptions: { noEmit: true, types: ['node'], noUnusedLocals: false },
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

test('the guides have ts blocks, and every guide is listed in docs/README.md', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  const index = readFileSync(path.join(docsDir, 'README.md'), 'utf8');
  for (const guide of guides.filter((g) => g !== 'README.md')) expect(index).toContain(`](${guide})`);
});

test('every ts block in the guides type-checks', () => {
  expect(diagnostics.filter((d) => !d.startsWith('docs/canary.md'))).toEqual([]);
});

test('the type check catches a block that does not compile', () => {
  expect(diagnostics.filter((d) => d.startsWith('docs/canary.md'))).toEqual([
    "docs/canary.md:1: error TS2322: Type 'string' is not assignable to type 'number'.",
  ]);
});

const tsx = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');

for (const guide of RUN)
  test(`the ts blocks of ${guide} run`, async () => {
    const ran = blocks.filter((b) => b.guide === guide);
    expect(ran.length).toBeGreaterThan(0);
    for (const block of ran) {
      const where = `docs/${block.guide}:${block.line}`;
      const { stdout } = await run(process.execPath, [tsx, '--conditions=@openresponses/source', block.file], {
        cwd: tmp,
        timeout: 120_000,
      }).catch((error: { stderr?: string; message: string }) => {
        throw new Error(`${where} failed: ${error.stderr || error.message}`);
      });
      expect(stdout, where).not.toBe('');
    }
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
