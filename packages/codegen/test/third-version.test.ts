// Adding a spec version is a manifest entry and a synced document, nothing else: a synthetic third
// version (the latest plus an optional field and an enum value) is generated into a temporary copy of
// the types and zod packages, whose hand-written sources and type tests must then type-check unchanged.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateAll, readManifest, sha256Of, syncedDocumentPath } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const SYNTHETIC = '2099-01-01';
let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(os.tmpdir(), 'openresponses-third-version-'));
  const manifest = await readManifest(repoRoot);
  const latest = JSON.parse(await readFile(syncedDocumentPath(repoRoot, manifest.latest), 'utf8'));
  latest.components.schemas.Usage.properties.synthetic_cached_tokens = {
    type: 'integer',
    description: 'Synthetic field that only the third version has.',
  };
  latest.components.schemas.ReasoningEffortEnum.enum.push('maximal');
  const bytes = Buffer.from(JSON.stringify(latest, null, 2));
  for (const entry of manifest.versions) {
    await mkdir(path.dirname(syncedDocumentPath(workspace, entry.version)), { recursive: true });
    await cp(syncedDocumentPath(repoRoot, entry.version), syncedDocumentPath(workspace, entry.version));
  }
  await mkdir(path.dirname(syncedDocumentPath(workspace, SYNTHETIC)), { recursive: true });
  await writeFile(syncedDocumentPath(workspace, SYNTHETIC), bytes);
  await writeFile(
    path.join(workspace, 'openapi', 'manifest.json'),
    JSON.stringify({
      latest: SYNTHETIC,
      versions: [
        ...manifest.versions,
        { version: SYNTHETIC, url: 'https://example.test/openapi.json', sha256: sha256Of(bytes) },
      ],
    }),
  );
  for (const pkg of ['types', 'zod'])
    await cp(path.join(repoRoot, 'packages', pkg, 'src'), path.join(workspace, 'packages', pkg, 'src'), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}generated`),
    });
  await writeFile(path.join(workspace, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  // zod and vitest resolve from the repository; our own packages from the copies (tsconfig paths).
  await symlink(path.join(repoRoot, 'node_modules'), path.join(workspace, 'node_modules'), 'dir');
}, 60_000);

afterAll(async () => {
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

test('a third version generates, becomes the latest, and the type tests pass on it', async () => {
  const report = await generateAll({ repoRoot: workspace });
  expect(report.versions).toEqual(expect.arrayContaining([SYNTHETIC]));
  expect(report.versions).toHaveLength(3);

  const versionsModule = await readFile(path.join(workspace, 'packages/types/src/generated/versions.gen.ts'), 'utf8');
  expect(versionsModule).toContain(`export const LATEST_SPEC_VERSION = "${SYNTHETIC}"`);
  const latestModule = await readFile(path.join(workspace, 'packages/zod/src/generated/latest.gen.ts'), 'utf8');
  expect(latestModule).toContain(`./${SYNTHETIC}/index.gen.js`);

  // Type tests specific to the synthetic version, beside the packages' own.
  await writeFile(
    path.join(workspace, 'packages/types/src/third-version.test-d.ts'),
    [
      `import { expectTypeOf } from 'vitest';`,
      `import type { LATEST_SPEC_VERSION, ReasoningEffortEnum, SpecVersion, TypesByVersion, Usage } from './index.js';`,
      `import type * as V2 from './generated/2026-04-24/index.gen.js';`,
      `expectTypeOf<typeof LATEST_SPEC_VERSION>().toEqualTypeOf<'${SYNTHETIC}'>();`,
      `expectTypeOf<SpecVersion>().toEqualTypeOf<'2026-01-15' | '2026-04-24' | '${SYNTHETIC}'>();`,
      `expectTypeOf<Usage['synthetic_cached_tokens']>().toEqualTypeOf<number | undefined>();`,
      `expectTypeOf<'maximal'>().toMatchTypeOf<ReasoningEffortEnum>();`,
      `expectTypeOf<'maximal'>().not.toMatchTypeOf<V2.ReasoningEffortEnum>();`,
      `expectTypeOf<TypesByVersion['${SYNTHETIC}']['schemas']['Usage']>().toEqualTypeOf<Usage>();`,
      '',
    ].join('\n'),
  );
  const packages = path.join(workspace, 'packages');
  await writeFile(
    path.join(workspace, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(repoRoot, 'tsconfig.base.json'),
      compilerOptions: {
        noEmit: true,
        types: ['node'],
        typeRoots: [path.join(repoRoot, 'node_modules/@types')],
        paths: {
          '@openresponses/types': [`${packages}/types/src/index.ts`],
          '@openresponses/types/*': [`${packages}/types/src/generated/*/index.gen.ts`],
          '@openresponses/zod': [`${packages}/zod/src/index.ts`],
          '@openresponses/zod/*': [`${packages}/zod/src/generated/*/index.gen.ts`],
        },
      },
      include: ['packages/types/src', 'packages/zod/src'],
    }),
  );
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', path.join(workspace, 'tsconfig.json')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error);
  }
  expect(output).toBe('');
}, 180_000);
