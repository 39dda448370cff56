// The generator on small fixture documents, one per construct: output compared with committed
// snapshot files, which are then type-checked; generation is deterministic; unsupported schemas fail
// with their path.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { generateVersion, readOpenApi, sha256Of, TARGETS, UnsupportedSchemaError } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = readdirSync(path.join(here, 'fixtures'))
  .filter((f) => f.endsWith('.json'))
  .sort();

function load(file: string) {
  const bytes = readFileSync(path.join(here, 'fixtures', file));
  const name = file.replace(/\.json$/, '');
  return { name, input: { version: name, sha256: sha256Of(bytes), document: JSON.parse(bytes.toString('utf8')) } };
}

describe.each(fixtures)('fixture %s', (file) => {
  const { name, input } = load(file);
  test.each(TARGETS.map((t) => t.name))('target %s: output matches the snapshot files', async (target) => {
    const output = await generateVersion(input);
    const files = Object.entries(output.files[target]!);
    expect(files.length).toBeGreaterThan(0);
    for (const [relative, content] of files)
      await expect(content).toMatchFileSnapshot(`__snapshots__/${target}/${relative}`);
  });
  test('generation is deterministic', async () => {
    const [a, b] = [await generateVersion(input), await generateVersion(input)];
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(Object.keys(a.files.types!)).toContain(`${name}/openapi.gen.ts`);
    expect(Object.keys(a.files)).toEqual(TARGETS.map((t) => t.name));
  });
});

test('the snapshot outputs type-check', () => {
  const tsc = path.resolve(here, '../../../node_modules/typescript/bin/tsc');
  expect(() =>
    execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.snapshots.json')], {
      encoding: 'utf8',
      stdio: 'pipe',
    }),
  ).not.toThrow();
}, 120_000); // a whole tsc run: past the 30 s default on a loaded 2-core machine

describe('unsupported schemas fail generation with their path', () => {
  const base = load('maps-and-constraints.json').input.document as { components: { schemas: Record<string, unknown> } };
  const withSchema = (schema: unknown) => ({
    ...base,
    components: { schemas: { ...base.components.schemas, Broken: { type: 'object', properties: { field: schema } } } },
  });
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'an unknown keyword',
      { type: 'string', format: 'uri' },
      /#\/components\/schemas\/Broken\/properties\/field: keyword "format" is not supported/,
    ],
    [
      'patternProperties',
      { type: 'object', patternProperties: { '^x': {} } },
      /properties\/field: keyword "patternProperties"/,
    ],
    ['a remote $ref', { $ref: 'https://example.test/schema.json' }, /only local component references/],
    ['a missing $ref target', { $ref: '#/components/schemas/Nope' }, /reference to missing schema "Nope"/],
    ['properties without type', { properties: { a: { type: 'string' } } }, /"properties" without "type"/],
    [
      'a keyword of another type',
      { type: 'string', minItems: 1 },
      /keyword "minItems" does not apply to type "string"/,
    ],
    [
      'a discriminator mapping',
      { oneOf: [{ type: 'string' }, { type: 'number' }], discriminator: { propertyName: 'type', mapping: {} } },
      /discriminator mapping is not supported/,
    ],
    [
      'allOf over a non-object',
      { allOf: [{ type: 'string' }, { type: 'object' }] },
      /allOf can only merge object schemas/,
    ],
  ];
  test.each(cases)('%s', async (_label, schema, message) => {
    expect(() => readOpenApi(withSchema(schema), { version: 'x', sha256: '0'.repeat(64) })).toThrow(
      UnsupportedSchemaError,
    );
    // Every target works from the model, so generation as a whole (all targets) fails the same way.
    const generation = generateVersion(
      { version: 'x', sha256: '0'.repeat(64), document: withSchema(schema) },
      { openapiTypescript: false },
    );
    await expect(generation).rejects.toThrow(UnsupportedSchemaError);
    await expect(generation).rejects.toThrow(message);
  });
});
