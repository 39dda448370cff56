// The published shape of every public package, checked on the real tarballs: `npm pack`, publint and
// arethetypeswrong are clean, and a scratch project that installs the tarballs can import (at run time)
// and type-check (with tsc, NodeNext) every entry point. Run after `build` (turbo does).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import {
  entryPoints,
  installTarballs,
  missingFromDevDependencies,
  packAll,
  publicPackages as packages,
  repoRoot,
  specVersions,
} from '../../test-support/tarballs.js';

const work = mkdtempSync(path.join(tmpdir(), 'openresponses-pack-'));
let tarballs = new Map<string, string>();

beforeAll(async () => {
  tarballs = await packAll(work);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('every publishable package is a devDependency of this test, so turbo builds it first', () => {
  expect(missingFromDevDependencies(new URL('./package.json', import.meta.url))).toEqual([]);
  for (const pkg of packages) expect(readdirSync(pkg.dir), `${pkg.json.name} is not built`).toContain('dist');
});

describe.each(packages.map((p) => [p.json.name, p] as const))('%s', (_name, pkg) => {
  test('publint finds nothing', async () => {
    // On the tarball arethetypeswrong reads too, rather than a second `npm pack --dry-run` per package (~1 s of
    // CPU each). A file the manifest names but `files` leaves out is missing from it: FILE_DOES_NOT_EXIST.
    const tarball = new Uint8Array(readFileSync(tarballs.get(pkg.json.name)!)).buffer;
    const { messages } = await publint({ level: 'suggestion', pack: { tarball } });
    expect(messages.map((m) => formatMessage(m, pkg.json as never) ?? m.code)).toEqual([]);
  });

  test('arethetypeswrong finds no problems for ESM consumers (node16 from ESM, bundler)', async () => {
    // Its library in this process, as its CLI runs it (the CLI's JSON is this analysis): one TypeScript
    // loaded for every package instead of a node process and a TypeScript per package.
    const tarball = new Uint8Array(readFileSync(tarballs.get(pkg.json.name)!));
    const analysis = await checkPackage(createPackageFromTarballData(tarball), {
      excludeEntrypoints: ['./package.json'],
      // attw cannot expand `./*` patterns, so the version subpaths are named explicitly.
      includeEntrypoints: Object.keys(pkg.json.exports).some((k) => k.includes('*'))
        ? specVersions.map((v) => `./${v}`)
        : [],
    });
    if (!analysis.types) throw new Error(`${pkg.json.name}: arethetypeswrong found no types`);
    // ESM-only by design: CommonJS (`node16-cjs`) and pre-exports (`node10`) resolution are out of scope.
    const relevant = analysis.problems.filter(
      (p) => !('resolutionKind' in p) || (p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs'),
    );
    expect(relevant).toEqual([]);
  });
});

test('a scratch project installs the tarballs, imports every entry point and type-checks against them', async () => {
  const project = path.join(work, 'consumer');
  // The Node entry points (server/node, server/testing, store-redis and its ioredis) declare Node's own types,
  // as every Node library does: a project that imports them has @types/node, the repository's version here.
  await installTarballs(project, tarballs, { '@types/node': rootDevDependency('@types/node') });
  // zod comes in once, as the peer every package shares.
  expect(zodCopies(project)).toHaveLength(1);

  const specifiers = packages.filter((p) => p.json.name !== '@openresponses/codegen').flatMap(entryPoints);
  const runtime = specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`).join('\n');
  writeFileSync(
    path.join(project, 'smoke.mjs'),
    `${runtime}\nconsole.log(JSON.stringify([${specifiers.map((_, i) => `Object.keys(m${i}).length`).join(', ')}]));\n`,
  );
  const counts = JSON.parse(
    execFileSync(process.execPath, ['smoke.mjs'], { cwd: project, encoding: 'utf8' }),
  ) as number[];
  expect(counts.length).toBe(specifiers.length);

  writeFileSync(
    path.join(project, 'consumer.ts'),
    [
      `import type { ResponseResource, StreamingEvent } from '@openresponses/types';`,
      `import type * as Pinned from '@openresponses/types/2026-01-15';`,
      `import { ResponseResourceSchema, StreamingEventSchema, validate, versions } from '@openresponses/zod';`,
      `import type { z } from 'zod';`,
      `const result = validate(ResponseResourceSchema, JSON.parse('{}'));`,
      `export const same: ResponseResource | undefined = result.success ? result.data : undefined;`,
      `export const inferred: z.infer<typeof StreamingEventSchema> | undefined = undefined as StreamingEvent | undefined;`,
      `export const pinned: Pinned.ItemField['type'] = 'message';`,
      `export const table = versions['2026-01-15'].exact.ItemParamSchema;`,
      // Every entry point's declarations resolve with what the packages declare (no @types/ws, no SDK).
      ...specifiers.map((s, i) => `import type * as types${i} from ${JSON.stringify(s)};`),
      `export type Everything = [${specifiers.map((_, i) => `typeof types${i}`).join(', ')}];`,
      '',
    ].join('\n'),
  );
  expect(typeCheck(project, ['node'])).toBe('');
});

/** Type-checks a scratch project's consumer.ts against the installed declarations (libraries' too); returns tsc's diagnostics. */
function typeCheck(project: string, types: string[] = []): string {
  writeFileSync(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types,
      },
      files: ['consumer.ts'],
    }),
  );
  try {
    execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', project], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout || error);
  }
}

/** The version range of a development dependency of the repository's root package.json. */
function rootDevDependency(name: string): string {
  const root = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const range = root.devDependencies[name];
  if (!range) throw new Error(`${name} is not a development dependency of the repository`);
  return range;
}

/** Every installed copy of zod in a project's tree (hoisted or nested), by version. */
function zodCopies(project: string): string[] {
  const found: string[] = [];
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dirs = entry.name.startsWith('@')
        ? readdirSync(path.join(modules, entry.name)).map((n) => path.join(modules, entry.name, n))
        : [path.join(modules, entry.name)];
      for (const dir of dirs) {
        const manifestFile = path.join(dir, 'package.json');
        const manifest = existsSync(manifestFile) ? JSON.parse(readFileSync(manifestFile, 'utf8')) : undefined;
        if (manifest?.name === 'zod') found.push(manifest.version);
        visit(path.join(dir, 'node_modules'));
      }
    }
  };
  visit(path.join(project, 'node_modules'));
  return found;
}

// zod is a peer (`^3.25.76 || ^4.1.8`, like the ai and openai packages): a project pinned to zod 3 keeps
// its one copy (whose `zod/v4` our packages use) instead of getting nested zod 4 copies, and schemas it
// builds with its own zod work with ours.
test('a project pinned to zod 3 gets exactly one zod, and our packages work with it', async () => {
  const project = path.join(work, 'zod3-consumer');
  const ours = new Map([...tarballs].filter(([name]) => name !== '@openresponses/codegen'));
  await installTarballs(project, ours, { zod: '3.25.76' });
  expect(zodCopies(project)).toEqual(['3.25.76']);

  writeFileSync(
    path.join(project, 'check.mjs'),
    [
      `import * as z from 'zod/v4';`,
      `import { UsageSchema, validate } from '@openresponses/zod';`,
      `import * as mini from '@openresponses/zod/mini';`,
      `import { createRegistry, defineItem } from '@openresponses/extensions';`,
      `const usage = { input_tokens: 1, output_tokens: 2, total_tokens: 3, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } };`,
      `const registry = createRegistry({ items: [defineItem('acme:note', { text: z.string() })] });`,
      `const note = { type: 'acme:note', id: 'n1', status: 'completed', text: 'hi' };`,
      `console.log(JSON.stringify([`,
      `  validate(UsageSchema, usage).success,`,
      `  mini.validate(mini.UsageSchema, usage).success,`,
      `  validate(UsageSchema, { ...usage, input_tokens: 'x' }).success,`,
      `  validate(registry.schemas.ItemField, note).success,`,
      `  validate(registry.schemas.ItemField, { ...note, text: 1 }).success,`,
      `]));`,
      '',
    ].join('\n'),
  );
  const verdicts = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: project, encoding: 'utf8' }));
  expect(verdicts).toEqual([true, true, false, true, false]);

  // The declarations type-check against zod 3.25's zod/v4 too, and infer the same types.
  writeFileSync(
    path.join(project, 'consumer.ts'),
    [
      `import type * as z from 'zod/v4';`,
      `import type { Usage } from '@openresponses/types';`,
      `import type { UsageSchema } from '@openresponses/zod';`,
      `import type * as mini from '@openresponses/zod/mini';`,
      `export const classic: z.infer<typeof UsageSchema> = {} as Usage;`,
      `export const small: Usage = {} as z.infer<typeof mini.UsageSchema>;`,
      '',
    ].join('\n'),
  );
  expect(typeCheck(project)).toBe('');
});
