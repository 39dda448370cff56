import { type Project, type StatementStructures, StructureKind, VariableDeclarationKind } from 'ts-morph';
import type { DiscriminationPlan, ModelAnalysis, ValidationMode } from '../model/analysis.js';
import { type SchemaNode, useSiteAnnotations } from '../model/schema-model.js';
import { docComment, docText, generatedHeader, printModule, propertyKey, undescribedField } from './docs.js';

export const schemaConstName = (name: string) => `${name}Schema`;

/**
 * Zod 4 classic (methods on schemas) or Zod mini (functions and `.check()`, tree-shakable). Both are
 * imported through their `zod/v4…` subpaths, which zod 3.25 and zod 4 both ship (zod is a peer).
 */
export interface ZodFlavour {
  name: 'classic' | 'mini';
  module: string;
  /** The hand-written building blocks, relative to a generated version folder. */
  runtimeModule: string;
  /** The Zod type name for a classic name (`ZodString` -> `ZodMiniString`). */
  typeName(classic: string): string;
}

export const ZOD_CLASSIC: ZodFlavour = {
  name: 'classic',
  module: 'zod/v4',
  runtimeModule: '../../runtime/checks.js',
  typeName: (classic) => `z.${classic}`,
};

export const ZOD_MINI: ZodFlavour = {
  name: 'mini',
  module: 'zod/v4/mini',
  runtimeModule: '../../../runtime/mini.js',
  // Mini's primitive types default their input to `unknown`; zod 3.25's record keys need it spelled out.
  typeName: (classic) =>
    `z.${classic.replace(/^Zod/, 'ZodMini')}${({ ZodString: '<string>', ZodNumber: '<number>', ZodBoolean: '<boolean>' } as Record<string, string>)[classic] ?? ''}`,
};

/** Every call in generated code is marked pure, so bundlers drop the schemas a program does not import. */
const PURE = '/*#__PURE__*/ ';

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
  flavour: ZodFlavour = ZOD_CLASSIC,
): string {
  const { model } = analysis;
  const { order, cyclic } = analysis.declarationOrder();
  const emitter = new ZodExpressionEmitter(analysis, cyclic, flavour);
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
      const values = analysis.openUnionTypes(schema.node);
      emitter.use('openUnion');
      expression = `${PURE}openUnion(${expression}, ${JSON.stringify(values)})`;
      type = `${flavour.typeName('ZodUnion')}<[${type}, ${emitter.use('OpaqueMemberSchema')}]>`;
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
          type: cyclic.has(schema.name) ? `${flavour.typeName('ZodType')}<T.${schema.name}>` : type,
          initializer: expression,
        },
      ],
    });
  }
  const statements: StatementStructures[] = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: flavour.module, namespaceImport: 'z' },
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
    statements.push({ kind: StructureKind.ImportDeclaration, moduleSpecifier: flavour.runtimeModule, namedImports });
  }
  // Schemas without an open union are the same in both modes: reuse the exact instances.
  if (reused.length > 0)
    statements.push({ kind: StructureKind.ImportDeclaration, moduleSpecifier: './exact.gen.js', namedImports: reused });
  for (const [pattern, name] of emitter.patterns) {
    statements.push({
      kind: StructureKind.VariableStatement,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name, initializer: `${PURE}new RegExp(${JSON.stringify(pattern)}, 'u')` }],
    });
  }
  statements.push(...declarations);
  if (reused.length > 0) statements.push({ kind: StructureKind.ExportDeclaration, namedExports: reused });
  return printModule(project, fileName, generatedHeader(model.version, model.sha256), statements);
}

class ZodExpressionEmitter {
  readonly runtimeImports = new Set<string>();
  /** Regular expressions are compiled once per module, not per parse. */
  readonly patterns = new Map<string, string>();

  constructor(
    private readonly analysis: ModelAnalysis,
    private readonly cyclic: Set<string>,
    private readonly flavour: ZodFlavour,
  ) {}

  private get mini(): boolean {
    return this.flavour.name === 'mini';
  }

  /** A refinement or constraint added to `base`: a method in classic, a `.check()` with a function in mini. */
  private constrain(base: string, method: string, check: string, argument: string): string {
    return this.mini ? `${base}.check(${PURE}z.${check}(${argument}))` : `${base}.${method}(${argument})`;
  }

  private wrap(inner: string, wrapper: 'optional' | 'nullable'): string {
    // A method chain is one call for the pure annotation, which must then stand before the whole chain.
    return this.mini
      ? `${PURE}z.${wrapper}(${inner})`
      : `${PURE}${inner.replace(/^\/\*#__PURE__\*\/ /, '')}.${wrapper}()`;
  }

  private t(classic: string): string {
    return this.flavour.typeName(classic);
  }

  use(helper: string): string {
    this.runtimeImports.add(helper);
    return helper;
  }

  expression(node: SchemaNode): string {
    switch (node.kind) {
      case 'ref':
        return this.cyclic.has(node.name)
          ? `${PURE}z.lazy(() => ${schemaConstName(node.name)})`
          : schemaConstName(node.name);
      case 'string': {
        if (node.enum) return literals(node.enum);
        let out = `${PURE}z.string()`;
        if (node.minLength !== undefined && node.minLength > 0)
          out += `.check(${PURE}${this.use('minCodePoints')}(${node.minLength}))`;
        if (node.maxLength !== undefined) out += `.check(${PURE}${this.use('maxCodePoints')}(${node.maxLength}))`;
        if (node.pattern !== undefined) out = this.constrain(out, 'regex', 'regex', this.pattern(node.pattern));
        return out;
      }
      case 'number': {
        if (node.enum) return literals(node.enum);
        let out = `${PURE}z.number()`;
        if (node.integer) out += `.check(${this.use('jsonInteger')})`;
        if (node.minimum !== undefined) out = this.constrain(out, 'gte', 'gte', String(node.minimum));
        if (node.maximum !== undefined) out = this.constrain(out, 'lte', 'lte', String(node.maximum));
        if (node.exclusiveMinimum !== undefined) out = this.constrain(out, 'gt', 'gt', String(node.exclusiveMinimum));
        if (node.exclusiveMaximum !== undefined) out = this.constrain(out, 'lt', 'lt', String(node.exclusiveMaximum));
        return out;
      }
      case 'boolean':
        return node.enum ? literals(node.enum) : `${PURE}z.boolean()`;
      case 'null':
        return `${PURE}z.null()`;
      case 'any':
        return `${PURE}z.unknown()`;
      case 'never':
        return `${PURE}z.never()`;
      case 'array': {
        let out = `${PURE}z.array(${this.expression(node.items)})`;
        if (node.minItems !== undefined && node.minItems > 0)
          out = this.constrain(out, 'min', 'minLength', String(node.minItems));
        if (node.maxItems !== undefined) out = this.constrain(out, 'max', 'maxLength', String(node.maxItems));
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
          ? `${this.t('ZodLazy')}<${this.t('ZodType')}<T.${node.name}>>`
          : `typeof ${schemaConstName(node.name)}`;
      case 'string':
        return node.enum ? this.literalsType(node.enum) : this.t('ZodString');
      case 'number':
        return node.enum ? this.literalsType(node.enum) : this.t('ZodNumber');
      case 'boolean':
        return node.enum ? this.literalsType(node.enum) : this.t('ZodBoolean');
      case 'null':
        return this.t('ZodNull');
      case 'any':
        return this.t('ZodUnknown');
      case 'never':
        return this.t('ZodNever');
      case 'array':
        return `${this.t('ZodArray')}<${this.typeExpression(node.items)}>`;
      case 'object': {
        if (node.properties.length === 0) {
          if (node.additional === 'none') return `${this.t('ZodObject')}<{}, z.core.$strict>`;
          return `${this.t('ZodRecord')}<${this.t('ZodString')}, ${node.additional === 'any' ? this.t('ZodUnknown') : this.typeExpression(node.additional)}>`;
        }
        // Each field carries the spec's description (or a sentence saying it has none), as the named types do.
        const fields = node.properties.map((p) => {
          let value = p.disallowed ? this.t('ZodNever') : this.typeExpression(p.node);
          if (!p.required || p.disallowed) value = `${this.t('ZodOptional')}<${value}>`;
          return `${docComment(useSiteAnnotations(p.node), '  ', undescribedField(p.name))}  ${propertyKey(p.name)}: ${value};`;
        });
        return `${this.t('ZodObject')}<{\n${fields.join('\n')}\n}, z.core.${node.additional === 'none' ? '$strict' : '$strip'}>`;
      }
      case 'union': {
        const shape = this.analysis.unionShape(node);
        switch (shape.kind) {
          case 'never':
            return this.t('ZodNever');
          case 'single':
            return this.typeExpression(shape.member);
          case 'nullable':
            return `${this.t('ZodNullable')}<${this.typeExpression(shape.member)}>`;
          case 'discriminated':
            return this.discriminatedType(shape.plan);
          case 'union':
          case 'xor':
            return `${this.t(shape.kind === 'xor' ? 'ZodXor' : 'ZodUnion')}<readonly [${shape.members.map((m) => this.typeExpression(m)).join(', ')}]>`;
        }
      }
    }
  }

  private literalsType(values: Array<string | number | boolean>): string {
    const unique = [...new Set(values)];
    if (unique.length === 0) return this.t('ZodNever');
    if (unique.length === 1) return `${this.t('ZodLiteral')}<${JSON.stringify(unique[0])}>`;
    if (unique.every((v) => typeof v === 'string'))
      // One member a line: TypeDoc reads a member's JSDoc only when it starts the line.
      return `${this.t('ZodEnum')}<{\n${unique.map((v) => `  /** The value \`${v}\`. */\n  ${propertyKey(v as string)}: ${JSON.stringify(v)};`).join('\n')}\n}>`;
    return `${this.t('ZodUnion')}<readonly [${unique.map((v) => `${this.t('ZodLiteral')}<${JSON.stringify(v)}>`).join(', ')}]>`;
  }

  private discriminatedType(plan: DiscriminationPlan): string {
    const branches = plan.branches.map((branch) =>
      'member' in branch ? this.typeExpression(branch.member) : this.discriminatedType(branch.nested),
    );
    // No discriminator type argument: zod 3.25's zod/v4 types take only the options (the peer range includes it).
    return `${this.t('ZodDiscriminatedUnion')}<[${branches.join(', ')}]>`;
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
      if (node.additional === 'none') out = `${PURE}z.strictObject({})`;
      else
        out = `${PURE}z.record(${PURE}z.string(), ${node.additional === 'any' ? `${PURE}z.unknown()` : this.expression(node.additional)})`;
    } else {
      const fields = node.properties.map((p) => {
        let value = p.disallowed ? `${PURE}z.never()` : this.expression(p.node);
        if (!p.required || p.disallowed) value = this.wrap(value, 'optional');
        return `${propertyKey(p.name)}: ${value}`;
      });
      const shape = `{\n${fields.map((f) => `  ${f},`).join('\n')}\n}`;
      out =
        node.additional === 'none'
          ? `${PURE}z.strictObject(${shape})`
          : `${PURE}${this.use('lossless')}(${PURE}z.looseObject(${shape}))`;
    }
    if (node.minProperties !== undefined && node.minProperties > 0)
      out += `.check(${PURE}${this.use('minKeys')}(${node.minProperties}))`;
    if (node.maxProperties !== undefined) out += `.check(${PURE}${this.use('maxKeys')}(${node.maxProperties}))`;
    return out;
  }

  private union(node: Extract<SchemaNode, { kind: 'union' }>): string {
    const shape = this.analysis.unionShape(node);
    switch (shape.kind) {
      case 'never':
        return `${PURE}z.never()`;
      case 'single':
        return this.expression(shape.member);
      case 'nullable':
        return this.wrap(this.expression(shape.member), 'nullable');
      case 'discriminated':
        return this.discriminated(shape.plan);
      case 'union':
      case 'xor':
        return `${PURE}z.${shape.kind}([${shape.members.map((m) => this.expression(m)).join(', ')}])`;
    }
  }

  private discriminated(plan: DiscriminationPlan): string {
    const branches = plan.branches.map((branch) =>
      'member' in branch ? this.expression(branch.member) : this.discriminated(branch.nested),
    );
    return `${PURE}z.discriminatedUnion(${JSON.stringify(plan.key)}, [${branches.join(', ')}])`;
  }
}

function literals(values: Array<string | number | boolean>): string {
  const unique = [...new Set(values)];
  if (unique.length === 0) return `${PURE}z.never()`;
  if (unique.length === 1) return `${PURE}z.literal(${JSON.stringify(unique[0])})`;
  if (unique.every((v) => typeof v === 'string')) return `${PURE}z.enum(${JSON.stringify(unique)})`;
  return `${PURE}z.union([${unique.map((v) => `${PURE}z.literal(${JSON.stringify(v)})`).join(', ')}])`;
}
