// Every property the spec describes has a JSDoc in the emitted types, wherever the description sits:
// on the property, inside a nullable field's `anyOf` member, or in an `allOf` description-only member.
// "Described" is read from the raw document here, independently of the generator's model.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Project, SyntaxKind } from 'ts-morph';
import { describe, expect, test } from 'vitest';
import { generateVersion, sha256Of } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'openapi/manifest.json'), 'utf8')) as {
  versions: Array<{ version: string }>;
};

type Raw = Record<string, unknown>;

/** Whether a property schema carries a description at the use site (not behind a `$ref`). */
function described(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const raw = schema as Raw;
  if (typeof raw.description === 'string' && raw.description.trim() !== '') return true;
  return (['anyOf', 'oneOf', 'allOf'] as const).some(
    (key) => Array.isArray(raw[key]) && (raw[key] as unknown[]).some(described),
  );
}

/** Described properties of a component: its own and those of `allOf` object members. */
function describedProperties(schema: Raw): string[] {
  const own = Object.entries((schema.properties as Record<string, unknown>) ?? {})
    .filter(([, value]) => described(value))
    .map(([name]) => name);
  const merged = Array.isArray(schema.allOf) ? (schema.allOf as Raw[]).flatMap(describedProperties) : [];
  return [...new Set([...own, ...merged])];
}

function documentedProperties(source: string, typeName: string): Set<string> {
  const project = new Project({ useInMemoryFileSystem: true });
  const file = project.createSourceFile('schemas.ts', source);
  const alias = file.getTypeAliasOrThrow(typeName);
  const literal = alias.getTypeNodeOrThrow().asKind(SyntaxKind.TypeLiteral);
  const out = new Set<string>();
  for (const member of literal?.getProperties() ?? [])
    if (member.getJsDocs().some((doc) => doc.getDescription().trim() !== ''))
      out.add(member.getName().replace(/^"|"$/g, ''));
  return out;
}

describe.each(manifest.versions.map((v) => v.version))('spec %s', (version) => {
  const bytes = readFileSync(path.join(repoRoot, 'openapi/documents', version, 'openapi.json'));
  const document = JSON.parse(bytes.toString('utf8')) as { components: { schemas: Record<string, Raw> } };

  test('every described property of every component has a JSDoc in the emitted types', async () => {
    const output = await generateVersion({ version, sha256: sha256Of(bytes), document }, { openapiTypescript: false });
    const source = output.files.types![`${version}/schemas.gen.ts`]!;
    const project = new Project({ useInMemoryFileSystem: true });
    const file = project.createSourceFile('schemas.ts', source);
    const missing: string[] = [];
    let checked = 0;
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      const wanted = describedProperties(schema);
      if (wanted.length === 0 || !file.getTypeAlias(name)) continue;
      const documented = documentedProperties(source, name);
      for (const property of wanted) {
        checked++;
        if (!documented.has(property)) missing.push(`${name}.${property}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });
});

test('the check can fail: a type without JSDoc is reported', () => {
  const documented = documentedProperties('export type A = {\n  /** Yes. */\n  a: string;\n  b: string;\n};\n', 'A');
  expect([...documented]).toEqual(['a']);
});
