// `npm run spec:add` in a temporary copy of the repository: bad documents, an existing version and a hash
// mismatch stop with a clear message and change nothing; a synthetic third version (the latest document plus
// an optional request field and a reasoning effort) is added, becomes the latest, is generated and diffed,
// gets its changeset, and the types and zod packages type-check on it with their root exports following it.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { copyRepository, type RepoCopy } from './repo-copy.js';

const THIRD = '2099-03-01';
let copy: RepoCopy;
let manifestBefore: string;
let changesetsBefore: string[];
let latestDocument: { openapi: string; components: { schemas: Record<string, Record<string, unknown>> } };

const manifestFile = () => path.join(copy.dir, 'openapi/manifest.json');
const changesets = () => readdirSync(path.join(copy.dir, '.changeset')).sort();
const documents = () => readdirSync(path.join(copy.dir, 'openapi/documents')).sort();

beforeAll(async () => {
  copy = copyRepository('openresponses-spec-add');
  manifestBefore = readFileSync(manifestFile(), 'utf8');
  changesetsBefore = changesets();
  const { latest } = JSON.parse(manifestBefore) as { latest: string };
  latestDocument = JSON.parse(readFileSync(path.join(copy.dir, 'openapi/documents', latest, 'openapi.json'), 'utf8'));
});
afterAll(() => copy?.remove());

/**
 * Runs spec:add in the copy, as `npm run spec:add` does (`viaNpm`) or straight through tsx (cheaper, for the
 * refusals, which run side by side); resolves with its exit status and output.
 */
async function specAdd(args: string[], { viaNpm = false } = {}): Promise<{ status: number; output: string }> {
  const [command, prefix] = viaNpm
    ? ['npm', ['run', '-s', 'spec:add', '--']]
    : [process.execPath, ['--import', 'tsx', '--conditions=@openresponses/source', 'scripts/spec-add.ts']];
  try {
    return { status: 0, output: await copy.run(command, [...prefix, ...args]) };
  } catch (error) {
    return { status: (error as { cause: { code: number } }).cause.code, output: (error as Error).message };
  }
}
function writeDocument(name: string, document: unknown): string {
  // Inside the copy (removed with it), in a folder git ignores.
  const file = path.join(copy.dir, '.tmp', `${name}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document, null, 2));
  return file;
}
/** Type assertions (compile errors when false) that the packages' root exports follow the third version. */
const latestTypeTest = `import { expectTypeOf } from 'vitest';
import type * as z from 'zod/v4';
import type { CreateResponseBody, ReasoningEffortEnum, SPEC_VERSION } from '@openresponses/types';
import type * as zod from '@openresponses/zod';

expectTypeOf<typeof SPEC_VERSION>().toEqualTypeOf<'${THIRD}'>();
expectTypeOf<typeof zod.SPEC_VERSION>().toEqualTypeOf<'${THIRD}'>();
expectTypeOf<NonNullable<CreateResponseBody['synthetic_priority']>>().toEqualTypeOf<number>();
expectTypeOf<NonNullable<z.output<typeof zod.CreateResponseBodySchema>['synthetic_priority']>>().toEqualTypeOf<number>();
expectTypeOf<'maximal'>().toMatchTypeOf<ReasoningEffortEnum>();
expectTypeOf<'maximal'>().toMatchTypeOf<z.output<typeof zod.ReasoningEffortEnumSchema>>();
`;

function expectNothingChanged() {
  expect(readFileSync(manifestFile(), 'utf8')).toBe(manifestBefore);
  expect(changesets()).toEqual(changesetsBefore);
  expect(documents()).not.toContain(THIRD);
}

test('a bad document, an existing version or a hash mismatch stops with a clear message and changes nothing', async () => {
  const openapi30 = writeDocument('openapi-30', { ...latestDocument, openapi: '3.0.3' });
  const notJson = writeDocument('not-json', 'openapi: 3.1.0\n');
  const same = writeDocument('same', latestDocument);
  const [notOpenApi31, notADocument, existing, mismatch] = await Promise.all([
    specAdd([THIRD, openapi30]),
    specAdd([THIRD, notJson]),
    specAdd(['2026-04-24', same]),
    specAdd([THIRD, same, '--sha256', '0'.repeat(64)]),
  ]);
  expect(notOpenApi31.status).toBe(2);
  expect(notOpenApi31.output).toContain(
    `spec:add: ${openapi30} is not an OpenAPI 3.1 document: "openapi" is "3.0.3", expected 3.1.x`,
  );
  expect(notADocument.status).toBe(2);
  expect(notADocument.output).toContain(`spec:add: ${notJson} is not a JSON document`);
  expect(existing.status).toBe(2);
  expect(existing.output).toContain(
    'spec:add: spec 2026-04-24 is already in openapi/manifest.json; nothing was changed',
  );
  expect(mismatch.status).toBe(2);
  expect(mismatch.output).toMatch(
    /spec:add: sha256 mismatch for .*\n {2}expected 0{64}\n {2}actual {3}[0-9a-f]{64}\nNothing was changed\./,
  );
  expectNothingChanged();
});

test('a synthetic third version is added, becomes the latest, is diffed and gets its changeset', async () => {
  const third = structuredClone(latestDocument);
  const schemas = third.components.schemas;
  (schemas.CreateResponseBody!.properties as Record<string, unknown>).synthetic_priority = {
    type: 'integer',
    description: 'Synthetic optional request field that only the third version has.',
  };
  (schemas.ReasoningEffortEnum!.enum as string[]).push('maximal');
  const file = writeDocument('third', third);

  const result = await specAdd([THIRD, file, '--url', `https://example.test/openapi/${THIRD}/openapi.json`], {
    viaNpm: true,
  });
  expect(result.status, result.output).toBe(0);
  const manifest = JSON.parse(readFileSync(manifestFile(), 'utf8'));
  expect(manifest.latest).toBe(THIRD);
  expect(manifest.versions.map((v: { version: string }) => v.version)).toEqual(['2026-01-15', '2026-04-24', THIRD]);
  expect(result.output).toContain(`latest is now ${THIRD}`);
  // The diff names what changed and knows which way each schema flows.
  // The WebSocket create event inherits the request body's fields, so it gains the field too.
  expect(result.output).toContain(`2026-04-24 -> ${THIRD}: 3 changes, 1 breaking`);
  expect(result.output).toMatch(/BREAKING {2}both {6}ReasoningEffortEnum +enum value "maximal" added/);
  for (const schema of ['CreateResponseBody', 'WebSocketResponseCreateEvent'])
    expect(result.output).toMatch(
      new RegExp(
        ` {10}request {3}${schema}\\.synthetic_priority +field synthetic_priority added \\(optional, integer\\)`,
      ),
    );

  const changeset = readFileSync(path.join(copy.dir, `.changeset/spec-${THIRD}.md`), 'utf8');
  expect(changeset).toMatch(/^---\n"@openresponses\/types": minor\n"@openresponses\/zod": minor\n---\n/);
  expect(changeset).toContain('- `ReasoningEffortEnum` (both): enum value "maximal" added');
  expect(readdirSync(path.join(copy.dir, 'packages/types/src/generated'))).toContain(THIRD);

  // The generated code of every version and the hand-written sources of types and zod type-check on the new
  // latest, in one program (zod's sources import the types), and both root exports carry its changes. The
  // packages' own type tests, which hold the generator to every version, are their typecheck tasks' work.
  writeFileSync(path.join(copy.dir, '.tmp/latest.test-d.ts'), latestTypeTest);
  writeFileSync(
    path.join(copy.dir, '.tmp/tsconfig.json'),
    JSON.stringify({
      extends: '../tsconfig.base.json',
      compilerOptions: { noEmit: true, types: ['node'] },
      include: ['../packages/types/src', '../packages/zod/src', 'latest.test-d.ts'],
    }),
  );
  await copy.run('npx', ['tsc', '-p', '.tmp/tsconfig.json']);
  // And spec:add refuses it a second time.
  expect((await specAdd([THIRD, file])).output).toContain(`spec ${THIRD} is already in openapi/manifest.json`);
});
