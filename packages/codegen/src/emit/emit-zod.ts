import { type Project, type StatementStructures, StructureKind, VariableDeclarationKind } from 'ts-morph';
import { ABSENT, type DiscriminationPlan, type ModelAnalysis } from '../model/analysis.js';
import type { SchemaNode } from '../model/schema-model.js';
import { docText, generatedHeader, printModule, propertyKey } from './docs.js';
import type { ValidationMode } from './emit-types.js';

export const schemaConstName = (name: string) => `${name}Schema`;

/** Where the generated modules import their hand-written building blocks from (relative to a version folder). */
const RUNTIME_MODULE = '../../runtime/checks.js';

/**
 * Emits one module of Zod 4 schemas, equivalent to the JSON Schema: discriminated unions where
 * members carry literal discriminators (nested where several share one), exclusive unions where
 * `oneOf` members may overlap, loose objects so unknown keys survive, code-point string lengths.
 */
export function emitZodModule(
  project: Project,
  analysis: ModelAnalysis,
  mode: ValidationMode,
  fileName: string,
  typesModule: string,
): string {
  const { model } = analysis;
  const { order, cyclic } = analysis.declarationOrder();
  const emitter = new ZodExpressionEmitter(analysis, cyclic);
  const declarations: StatementStructures[] = [];
  const reused: string[] = [];
  for (const schema of order) {
    if (mode === 'forward' && !analysis.dependsOnOpenUnion(schema.name)) {
      reused.push(schemaConstName(schema.name));
      continue;
    }
    let expression = emitter.expression(schema.node);
    let type = emitter.typeExpression(schema.node);
    if (mode === 'forward' && schema.open) {
      const values = knownTypes(analysis, schema.node);
      emitter.use('openUnion');
      expression = `openUnion(${expression}, ${JSON.stringify(values)})`;
      type = `z.ZodUnion<[${type}, ${emitter.use('OpaqueMemberSchema')}]>`;
    }
    const description = docText(schema.node.annotations);
    declarations.push({
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`Validates {@link T.${schema.name}}.${description ? `\n\n${description}` : ''}`],
      declarations: [
        {
          name: schemaConstName(schema.name),
          // Spelled-out types keep declarations small (references stay \`typeof XSchema\` instead of being
          // inlined), which is what makes type-checking consumers cheap. Recursive schemas are typed by
          // their named type, as TypeScript cannot infer a self-referencing initializer.
          type: cyclic.has(schema.name) ? `z.ZodType<T.${schema.name}>` : type,
          initializer: expression,
        },
      ],
    });
  }
  const statements: StatementStructures[] = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: 'zod', namedImports: ['z'] },
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: typesModule,
      ...(mode === 'forward' ? { namedImports: ['Forward as T'] } : { namespaceImport: 'T' }),
      isTypeOnly: true,
    },
  ];
  if (emitter.runtimeImports.size > 0) {
    const namedImports = [...emitter.runtimeImports]
      .sort()
      .map((name) => (name === 'OpaqueMemberSchema' ? { name, isTypeOnly: true } : { name }));
    statements.push({ kind: StructureKind.ImportDeclaration, moduleSpecifier: RUNTIME_MODULE, namedImports });
  }
  // Schemas without an open union are the same in both modes: reuse the exact instances.
  if (reused.length > 0)
    statements.push({ kind: StructureKind.ImportDeclaration, moduleSpecifier: './exact.gen.js', namedImports: reused });
  for (const [pattern, name] of emitter.patterns) {
    statements.push({
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name, initializer: `new RegExp(${JSON.stringify(pattern)}, 'u')` }],
    });
  }
  statements.push(...declarations);
  if (reused.length > 0) statements.push({ kind: StructureKind.ExportDeclaration, namedExports: reused });
  return printModule(project, fileName, generatedHeader(model.version, model.sha256), statements);
}

function knownTypes(analysis: ModelAnalysis, node: SchemaNode): Array<string | null> {
  if (node.kind !== 'union') throw new Error('Only unions are open');
  const values = node.members.flatMap((m) => analysis.discriminatorValues(m, 'type') ?? []);
  return [...new Set(values.filter((v): v is string | null => v !== ABSENT && (typeof v === 'string' || v === null)))];
}

class ZodExpressionEmitter {
  readonly runtimeImports = new Set<string>();
  /** Regular expressions are compiled once per module, not per parse. */
  readonly patterns = new Map<string, string>();

  constructor(
    private readonly analysis: ModelAnalysis,
    private readonly cyclic: Set<string>,
  ) {}

  use(helper: string): string {
    this.runtimeImports.add(helper);
    return helper;
  }

  expression(node: SchemaNode): string {
    switch (node.kind) {
      case 'ref':
        return this.cyclic.has(node.name) ? `z.lazy(() => ${schemaConstName(node.name)})` : schemaConstName(node.name);
      case 'string': {
        if (node.enum) return literals(node.enum);
        let out = 'z.string()';
        if (node.minLength !== undefined && node.minLength > 0)
          out += `.check(${this.use('minCodePoints')}(${node.minLength}))`;
        if (node.maxLength !== undefined) out += `.check(${this.use('maxCodePoints')}(${node.maxLength}))`;
        if (node.pattern !== undefined) out += `.regex(${this.pattern(node.pattern)})`;
        return out;
      }
      case 'number': {
        if (node.enum) return literals(node.enum);
        let out = 'z.number()';
        if (node.integer) out += `.check(${this.use('jsonInteger')})`;
        if (node.minimum !== undefined) out += `.gte(${node.minimum})`;
        if (node.maximum !== undefined) out += `.lte(${node.maximum})`;
        if (node.exclusiveMinimum !== undefined) out += `.gt(${node.exclusiveMinimum})`;
        if (node.exclusiveMaximum !== undefined) out += `.lt(${node.exclusiveMaximum})`;
        return out;
      }
      case 'boolean':
        return node.enum ? literals(node.enum) : 'z.boolean()';
      case 'null':
        return 'z.null()';
      case 'any':
        return 'z.unknown()';
      case 'never':
        return 'z.never()';
      case 'array': {
        let out = `z.array(${this.expression(node.items)})`;
        if (node.minItems !== undefined && node.minItems > 0) out += `.min(${node.minItems})`;
        if (node.maxItems !== undefined) out += `.max(${node.maxItems})`;
        return out;
      }
      case 'object':
        return this.object(node);
      case 'union':
        return this.union(node);
    }
  }

  /** The static type of `expression(node)`, spelled out (see the note at the declaration). */
  typeExpression(node: SchemaNode): string {
    switch (node.kind) {
      case 'ref':
        return this.cyclic.has(node.name)
          ? `z.ZodLazy<z.ZodType<T.${node.name}>>`
          : `typeof ${schemaConstName(node.name)}`;
      case 'string':
        return node.enum ? literalsType(node.enum) : 'z.ZodString';
      case 'number':
        return node.enum ? literalsType(node.enum) : 'z.ZodNumber';
      case 'boolean':
        return node.enum ? literalsType(node.enum) : 'z.ZodBoolean';
      case 'null':
        return 'z.ZodNull';
      case 'any':
        return 'z.ZodUnknown';
      case 'never':
        return 'z.ZodNever';
      case 'array':
        return `z.ZodArray<${this.typeExpression(node.items)}>`;
      case 'object': {
        if (node.properties.length === 0) {
          if (node.additional === 'none') return 'z.ZodObject<{}, z.core.$strict>';
          return `z.ZodRecord<z.ZodString, ${node.additional === 'any' ? 'z.ZodUnknown' : this.typeExpression(node.additional)}>`;
        }
        const fields = node.properties.map((p) => {
          let value = p.disallowed ? 'z.ZodNever' : this.typeExpression(p.node);
          if (!p.required || p.disallowed) value = `z.ZodOptional<${value}>`;
          return `${propertyKey(p.name)}: ${value}`;
        });
        return `z.ZodObject<{\n${fields.map((f) => `  ${f};`).join('\n')}\n}, z.core.${node.additional === 'none' ? '$strict' : '$strip'}>`;
      }
      case 'union': {
        const shape = this.unionShape(node);
        switch (shape.kind) {
          case 'never':
            return 'z.ZodNever';
          case 'single':
            return this.typeExpression(shape.member);
          case 'nullable':
            return `z.ZodNullable<${this.typeExpression(shape.member)}>`;
          case 'discriminated':
            return this.discriminatedType(shape.plan);
          case 'union':
          case 'xor':
            return `${shape.kind === 'xor' ? 'z.ZodXor' : 'z.ZodUnion'}<readonly [${shape.members.map((m) => this.typeExpression(m)).join(', ')}]>`;
        }
      }
    }
  }

  private discriminatedType(plan: DiscriminationPlan): string {
    const branches = plan.branches.map((branch) =>
      'member' in branch ? this.typeExpression(branch.member) : this.discriminatedType(branch.nested),
    );
    return `z.ZodDiscriminatedUnion<[${branches.join(', ')}], ${JSON.stringify(plan.key)}>`;
  }

  private pattern(pattern: string): string {
    let name = this.patterns.get(pattern);
    if (!name) {
      name = `PATTERN_${this.patterns.size + 1}`;
      this.patterns.set(pattern, name);
    }
    return name;
  }

  private object(node: Extract<SchemaNode, { kind: 'object' }>): string {
    let out: string;
    if (node.properties.length === 0) {
      if (node.additional === 'none') out = 'z.strictObject({})';
      else
        out = `z.record(z.string(), ${node.additional === 'any' ? 'z.unknown()' : this.expression(node.additional)})`;
    } else {
      const fields = node.properties.map((p) => {
        let value = p.disallowed ? 'z.never()' : this.expression(p.node);
        if (!p.required || p.disallowed) value += '.optional()';
        return `${propertyKey(p.name)}: ${value}`;
      });
      const shape = `{\n${fields.map((f) => `  ${f},`).join('\n')}\n}`;
      out =
        node.additional === 'none' ? `z.strictObject(${shape})` : `${this.use('lossless')}(z.looseObject(${shape}))`;
    }
    if (node.minProperties !== undefined && node.minProperties > 0)
      out += `.check(${this.use('minKeys')}(${node.minProperties}))`;
    if (node.maxProperties !== undefined) out += `.check(${this.use('maxKeys')}(${node.maxProperties}))`;
    return out;
  }

  /** How a union is emitted; shared by the value and the type emitters so they cannot drift apart. */
  private unionShape(
    node: Extract<SchemaNode, { kind: 'union' }>,
  ):
    | { kind: 'never' }
    | { kind: 'single' | 'nullable'; member: SchemaNode }
    | { kind: 'discriminated'; plan: DiscriminationPlan }
    | { kind: 'union' | 'xor'; members: SchemaNode[] } {
    const members = node.members.filter((m) => m.kind !== 'never');
    if (members.length === 0) return { kind: 'never' };
    if (members.length === 1) return { kind: 'single', member: members[0]! };
    const nonNull = members.filter((m) => m.kind !== 'null');
    if (nonNull.length === members.length - 1 && nonNull.length === 1) return { kind: 'nullable', member: nonNull[0]! };
    if (node.mode === 'oneOf' || node.discriminator) {
      const plan = this.analysis.discriminate(members, node.discriminator);
      if (plan) return { kind: 'discriminated', plan };
      if (node.discriminator) {
        throw new Error(
          `The union discriminated by "${node.discriminator}" has members that cannot be told apart by it`,
        );
      }
    }
    if (node.mode === 'anyOf') return { kind: 'union', members };
    // oneOf means exactly one member matches: a plain union is exact only when members cannot overlap.
    const overlapping = members.some((a, i) => members.slice(i + 1).some((b) => this.analysis.mayOverlap(a, b)));
    return { kind: overlapping ? 'xor' : 'union', members };
  }

  private union(node: Extract<SchemaNode, { kind: 'union' }>): string {
    const shape = this.unionShape(node);
    switch (shape.kind) {
      case 'never':
        return 'z.never()';
      case 'single':
        return this.expression(shape.member);
      case 'nullable':
        return `${this.expression(shape.member)}.nullable()`;
      case 'discriminated':
        return this.discriminated(shape.plan);
      case 'union':
      case 'xor':
        return `z.${shape.kind}([${shape.members.map((m) => this.expression(m)).join(', ')}])`;
    }
  }

  private discriminated(plan: DiscriminationPlan): string {
    const branches = plan.branches.map((branch) =>
      'member' in branch ? this.expression(branch.member) : this.discriminated(branch.nested),
    );
    return `z.discriminatedUnion(${JSON.stringify(plan.key)}, [${branches.join(', ')}])`;
  }
}

function literalsType(values: Array<string | number | boolean>): string {
  const unique = [...new Set(values)];
  if (unique.length === 0) return 'z.ZodNever';
  if (unique.length === 1) return `z.ZodLiteral<${JSON.stringify(unique[0])}>`;
  if (unique.every((v) => typeof v === 'string'))
    return `z.ZodEnum<{ ${unique.map((v) => `${propertyKey(v as string)}: ${JSON.stringify(v)}`).join('; ')} }>`;
  return `z.ZodUnion<readonly [${unique.map((v) => `z.ZodLiteral<${JSON.stringify(v)}>`).join(', ')}]>`;
}

function literals(values: Array<string | number | boolean>): string {
  const unique = [...new Set(values)];
  if (unique.length === 0) return 'z.never()';
  if (unique.length === 1) return `z.literal(${JSON.stringify(unique[0])})`;
  if (unique.every((v) => typeof v === 'string')) return `z.enum(${JSON.stringify(unique)})`;
  return `z.union([${unique.map((v) => `z.literal(${JSON.stringify(v)})`).join(', ')}])`;
}
