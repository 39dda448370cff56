import { type Project, type StatementStructures, StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { ModelAnalysis, ValidationMode } from '../model/analysis.js';
import { type SchemaNode, useSiteAnnotations } from '../model/schema-model.js';
import {
  docComment,
  docText,
  generatedHeader,
  moduleComment,
  printModule,
  propertyKey,
  undescribedField,
} from './docs.js';

/** The name of the type forward-compatible mode gives unknown members of open unions (narrowing-safe). */
export const UNKNOWN_MEMBER = 'UnknownMember';
/** The plain opaque member type the version index re-exports too. */
const OPAQUE_MEMBER = 'OpaqueMember';

/**
 * Emits one TypeScript module of named types. In forward-compatible mode, open unions also admit
 * `UnknownMember`, and schemas that contain no open union are re-exported from the exact module.
 */
export function emitTypesModule(
  project: Project,
  analysis: ModelAnalysis,
  mode: ValidationMode,
  fileName: string,
): string {
  const { model } = analysis;
  const statements: StatementStructures[] = [];
  const reused: string[] = [];
  for (const schema of model.schemas) {
    if (mode === 'forward' && !analysis.dependsOnOpenUnion(schema.name)) {
      reused.push(schema.name);
      continue;
    }
    let type = typeText(schema.node, '');
    if (mode === 'forward' && schema.open) type = `${type}\n  | ${UNKNOWN_MEMBER}`;
    const docs = docText(schema.node.annotations, schema.name);
    statements.push({
      kind: StructureKind.TypeAlias,
      name: schema.name,
      isExported: true,
      type,
      docs: docs ? [docs] : [],
    });
  }
  statements.push({
    kind: StructureKind.Interface,
    name: 'SchemaTypes',
    isExported: true,
    docs: ['Every named schema by name, for generic code (`SchemaTypes[Name]`).'],
    properties: model.schemas.map((s) => ({ name: s.name, type: s.name, docs: [`The \`${s.name}\` type.`] })),
  });
  if (mode === 'forward') {
    const imports: StatementStructures[] = [
      {
        kind: StructureKind.ImportDeclaration,
        moduleSpecifier: '../../opaque-member.js',
        namedImports: [UNKNOWN_MEMBER],
        isTypeOnly: true,
      },
    ];
    if (reused.length > 0) {
      // Schemas without an open union are the same in both modes: reuse the exact ones.
      imports.push({
        kind: StructureKind.ImportDeclaration,
        moduleSpecifier: './schemas.gen.js',
        namedImports: reused,
        isTypeOnly: true,
      });
      statements.push({ kind: StructureKind.ExportDeclaration, namedExports: reused, isTypeOnly: true });
    }
    statements.unshift(...imports);
  }
  return printModule(project, fileName, generatedHeader(model.version, model.sha256), statements);
}

/** The version entry point of `@openresponses/types`: exact types, the Forward namespace, event constants. */
export function emitTypesIndex(project: Project, analysis: ModelAnalysis, fileName: string): string {
  const { model } = analysis;
  const union = analysis.schema(model.streamingEventUnion).node;
  if (union.kind !== 'union') throw new Error('The streaming-event schema is not a union');
  const eventTypes = union.members.map((member) => {
    const values = analysis.discriminatorValues(member, 'type');
    if (values?.length !== 1 || typeof values[0] !== 'string')
      throw new Error('Every streaming event needs one literal type');
    return values[0];
  });
  const statements: StatementStructures[] = [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: './schemas.gen.js',
      namedImports: [model.streamingEventUnion, 'SchemaTypes'],
      isTypeOnly: true,
    },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './schemas.gen.js', isTypeOnly: true },
    {
      kind: StructureKind.ExportDeclaration,
      moduleSpecifier: './forward.gen.js',
      namespaceExport: 'Forward',
      isTypeOnly: true,
    },
    {
      kind: StructureKind.ExportDeclaration,
      moduleSpecifier: './openapi.gen.js',
      namedExports: ['paths', 'components', 'operations'],
      isTypeOnly: true,
    },
    {
      kind: StructureKind.ExportDeclaration,
      moduleSpecifier: '../../opaque-member.js',
      namedExports: [OPAQUE_MEMBER, UNKNOWN_MEMBER, 'UnknownType'],
      isTypeOnly: true,
    },
  ];
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['The spec version these types were generated from.'],
    declarations: [{ name: 'SPEC_VERSION', initializer: `${JSON.stringify(model.version)}` }],
  });
  statements.push({
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: 'StreamingEventType',
    type: `${model.streamingEventUnion}['type']`,
    docs: ['The `type` of every streaming event the spec defines.'],
  });
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Every streaming event type, in the order the spec lists them.'],
    declarations: [
      {
        name: 'STREAMING_EVENT_TYPES',
        initializer: `[\n${eventTypes.map((t) => `  ${JSON.stringify(t)},`).join('\n')}\n] as const satisfies readonly StreamingEventType[]`,
      },
    ],
  });
  statements.push({
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: 'StreamingEventByType',
    typeParameters: [{ name: 'T', constraint: 'StreamingEventType' }],
    type: `Extract<${model.streamingEventUnion}, {\n  /** The event type. */\n  type: T;\n}>`,
    docs: ['The streaming event whose `type` is `T`.'],
  });
  const open = model.schemas.filter((schema) => schema.open).map((schema) => schema.name);
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [
      'The unions open to vendor members (discriminated by `type`): items, content, annotations, tools and streaming events.',
    ],
    declarations: [
      {
        name: 'OPEN_UNIONS',
        initializer: `[\n${open.map((name) => `  ${JSON.stringify(name)},`).join('\n')}\n] as const satisfies readonly (keyof SchemaTypes)[]`,
      },
    ],
  });
  statements.push({
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: 'OpenUnion',
    type: '(typeof OPEN_UNIONS)[number]',
    docs: ['The name of a union that vendor members can extend.'],
  });
  statements.push({
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: 'ExtendedUnion',
    typeParameters: [
      { name: 'N', constraint: 'OpenUnion' },
      // biome-ignore lint/suspicious/noTemplateCurlyInString: emitted TypeScript, a template literal type
      { name: 'Vendor', constraint: '{\n  /** A vendor type: `slug:name`. */\n  type: `${string}:${string}`;\n}' },
    ],
    type: 'SchemaTypes[N] | Vendor',
    docs: ['An open union with vendor members added (`ExtendedUnion<"ItemField", AcmeSearchResult>`).'],
  });
  const description = `The types of spec version ${model.version}: every named schema, spec-exact (forward-compatible under \`Forward\`), the streaming event constants, and openapi-typescript's \`paths\`.`;
  const header = generatedHeader(model.version, model.sha256) + moduleComment(description);
  return printModule(project, fileName, header, statements);
}

/** TypeScript type text for a node; `indent` is the indentation of the line the type starts on. */
export function typeText(node: SchemaNode, indent: string): string {
  switch (node.kind) {
    case 'ref':
      return node.name;
    case 'string':
      return node.enum ? literalUnion(node.enum) : 'string';
    case 'number':
      return node.enum ? literalUnion(node.enum) : 'number';
    case 'boolean':
      return node.enum ? literalUnion(node.enum) : 'boolean';
    case 'null':
      return 'null';
    case 'any':
      return 'unknown';
    case 'never':
      return 'never';
    case 'array':
      return `Array<${typeText(node.items, indent)}>`;
    case 'union':
      return unique(node.members.map((m) => typeText(m, indent))).join(' | ');
    case 'object': {
      if (node.properties.length === 0) {
        if (node.additional === 'none') return 'Record<string, never>';
        const value = node.additional === 'any' ? 'unknown' : typeText(node.additional, indent);
        return `{ [key: string]: ${value} }`;
      }
      const inner = `${indent}  `;
      const fields = node.properties.map((p) => {
        const optional = p.required && !p.disallowed ? '' : '?';
        return `${docComment(useSiteAnnotations(p.node), inner, undescribedField(p.name))}${inner}${propertyKey(p.name)}${optional}: ${typeText(p.node, inner)};\n`;
      });
      return `{\n${fields.join('')}${indent}}`;
    }
  }
}

function literalUnion(values: Array<string | number | boolean>): string {
  if (values.length === 0) return 'never';
  return unique(values.map((v) => JSON.stringify(v))).join(' | ');
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
