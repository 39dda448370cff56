import { ABSENT, type DiscriminationPlan, type ModelAnalysis } from '../model/analysis.js';
import type { NamedSchema, ObjectNode, SchemaNode } from '../model/schema-model.js';
import { propertyKey } from './docs.js';

/**
 * Emits plain validator functions, equivalent to the JSON Schema: one `check_<Name>(v, p?)` per named
 * schema, with discriminated unions as a `switch` on the tag. Without `p` a check only answers (first
 * failure returns false, no allocation); with a path it reports every issue at the path of the field that
 * is wrong. One set of checks serves both modes: open unions read the run-time `mode.forward` flag (set
 * by the entry points) where a `type` is unknown, so forward-compatible mode costs no second copy.
 */
export function emitStandaloneChecks(analysis: ModelAnalysis, runtimeModule: string, header: string): string {
  const emitter = new CheckEmitter(analysis);
  for (const schema of analysis.model.schemas) emitter.schemaFunction(schema);
  const imports = [...emitter.runtime].sort();
  return [
    header,
    `import { ${['type IssuePath', ...imports].join(', ')} } from '${runtimeModule}';`,
    '',
    ...emitter.constants,
    ...(emitter.constants.length > 0 ? [''] : []),
    emitter.functions.join('\n\n'),
    '',
  ].join('\n');
}

/** The name of a named schema's check. */
export const checkName = (name: string): string => `check_${name}`;

const FAIL = '{ if (!p) return false; ok = false; }';

class CheckEmitter {
  readonly functions: string[] = [];
  readonly constants: string[] = [];
  readonly runtime = new Set<string>();
  private readonly patterns = new Map<string, string>();
  private prefix = '';
  private hoisted = 0;

  constructor(private readonly analysis: ModelAnalysis) {}

  private use(name: string): string {
    this.runtime.add(name);
    return name;
  }

  schemaFunction(schema: NamedSchema): void {
    this.prefix = checkName(schema.name);
    this.hoisted = 0;
    let body: string;
    const node = schema.node;
    const shape = node.kind === 'union' ? this.analysis.unionShape(node) : undefined;
    if (schema.open && shape?.kind === 'discriminated' && shape.plan.key === 'type') {
      // The switch's default branch is exactly "a `type` no member declares": unknown members pass there.
      body = this.discriminatedBody(shape.plan, true);
    } else if (schema.open) {
      const known = JSON.stringify(this.analysis.openUnionTypes(node));
      const set = this.constant(`/*#__PURE__*/ new Set<unknown>(${known})`);
      body = `if (${this.use('mode')}.forward && ${this.use('isObject')}(v) && typeof v.type === 'string' && !${set}.has(v.type)) return true;\n${this.body(node)}`;
    } else body = this.body(node);
    const note = schema.open ? ' Forward-compatible mode also accepts members of unknown `type`.' : '';
    this.functions.push(
      `/** Checks {@link ${schema.name}}.${note} */\nexport function ${this.prefix}(v: any, p?: IssuePath): boolean {\n${indent(body)}\n}`,
    );
  }

  private constant(initializer: string): string {
    const name = `C${this.constants.length + 1}`;
    this.constants.push(`const ${name} = ${initializer};`);
    return name;
  }

  private pattern(source: string): string {
    let name = this.patterns.get(source);
    if (!name) {
      name = this.constant(`/*#__PURE__*/ new RegExp(${JSON.stringify(source)}, 'u')`);
      this.patterns.set(source, name);
    }
    return name;
  }

  /** Statements of a check function over `v` and `p` that returns the verdict. */
  private body(node: SchemaNode): string {
    switch (node.kind) {
      case 'object':
        return this.objectBody(node);
      case 'array': {
        const lines = [`if (!Array.isArray(v)) return ${this.use('invalidType')}(p, 'array', v);`, 'let ok = true;'];
        if (node.minItems !== undefined && node.minItems > 0)
          lines.push(
            `if (v.length < ${node.minItems}) { if (!p) return false; ok = ${this.use('tooFewItems')}(p, ${node.minItems}); }`,
          );
        if (node.maxItems !== undefined)
          lines.push(
            `if (v.length > ${node.maxItems}) { if (!p) return false; ok = ${this.use('tooManyItems')}(p, ${node.maxItems}); }`,
          );
        if (node.items.kind !== 'any')
          lines.push(
            `for (let i = 0; i < v.length; i++) if (!${this.expression(node.items, 'v[i]', 'p && [...p, i]')}) ${FAIL}`,
          );
        lines.push('return ok;');
        return lines.join('\n');
      }
      case 'union': {
        const shape = this.analysis.unionShape(node);
        if (shape.kind === 'discriminated') return this.discriminatedBody(shape.plan, false);
        return `return ${this.expression(node, 'v', 'p')};`;
      }
      default:
        return `return ${this.expression(node, 'v', 'p')};`;
    }
  }

  private objectBody(node: ObjectNode): string {
    const lines = [
      `if (!${this.use('isObject')}(v)) return ${this.use('invalidType')}(p, 'object', v);`,
      'let ok = true;',
    ];
    for (const property of node.properties) {
      const key = JSON.stringify(property.name);
      const access = accessor('v', property.name);
      if (property.disallowed) {
        lines.push(
          `if (${access} !== undefined) { if (!p) return false; ok = ${this.use('disallowed')}(p, ${key}, ${access}); }`,
        );
        continue;
      }
      const check =
        property.node.kind === 'any' ? undefined : this.expression(property.node, access, `p && [...p, ${key}]`);
      if (property.required) {
        const missing = `if (${access} === undefined) { if (!p) return false; ok = ${this.use('missing')}(p, ${key}, ${JSON.stringify(this.expected(property.node))}); }`;
        lines.push(check ? `${missing} else if (!${check}) ${FAIL}` : missing);
      } else if (check) lines.push(`if (${access} !== undefined && !${check}) ${FAIL}`);
    }
    const known = node.properties.map((p) => JSON.stringify(p.name));
    if (node.additional === 'none') {
      const unknown = `{ if (!p) return false; ok = ${this.use('unrecognizedKey')}(p, k); }`;
      lines.push(
        known.length === 0
          ? `for (const k in v) ${unknown}`
          : `for (const k in v) switch (k) {\n  ${known.map((k) => `case ${k}:`).join(' ')}\n    break;\n  default: ${unknown}\n}`,
      );
    } else if (typeof node.additional === 'object' && node.additional.kind !== 'any') {
      const skip = known.length > 0 ? `if (${known.map((k) => `k === ${k}`).join(' || ')}) continue; ` : '';
      lines.push(
        `for (const k in v) { ${skip}if (!${this.expression(node.additional, 'v[k]', 'p && [...p, k]')}) ${FAIL} }`,
      );
    }
    if ((node.minProperties ?? 0) > 0 || node.maxProperties !== undefined)
      lines.push(
        `if (!${this.use('keyCount')}(v, p, ${node.minProperties ?? 'undefined'}, ${node.maxProperties ?? 'undefined'})) ${FAIL}`,
      );
    lines.push('return ok;');
    return lines.join('\n');
  }

  private discriminatedBody(plan: DiscriminationPlan, open: boolean): string {
    return [
      `if (!${this.use('isObject')}(v)) return ${this.use('invalidType')}(p, 'object', v);`,
      this.switchOn(plan, open),
    ].join('\n');
  }

  private switchOn(plan: DiscriminationPlan, open: boolean): string {
    const access = accessor('v', plan.key);
    const cases: string[] = [];
    const allowed: unknown[] = [];
    for (const branch of plan.branches) {
      const labels = branch.values.map((value) => `case ${value === ABSENT ? 'undefined' : JSON.stringify(value)}:`);
      allowed.push(...branch.values.map((value) => (value === ABSENT ? undefined : value)));
      const action =
        'member' in branch
          ? `return ${this.expression(branch.member, 'v', 'p')};`
          : `\n${indent(this.switchOn(branch.nested, false))}`;
      cases.push(`${labels.join(' ')} ${action}`);
    }
    const fallback = `${this.use('invalidTag')}(p, ${JSON.stringify(plan.key)}, ${literalArray(allowed)}, ${access})`;
    const unknown = open ? `(${this.use('mode')}.forward && typeof ${access} === 'string') || ` : '';
    cases.push(`default: return ${unknown}${fallback};`);
    return `switch (${access}) {\n${indent(cases.join('\n'))}\n}`;
  }

  /** A function checking `node` (a named schema's check, or a hoisted one for an inline node). */
  private functionFor(node: SchemaNode): string {
    if (node.kind === 'ref') return checkName(node.name);
    const name = `${this.prefix}$${++this.hoisted}`;
    const body = this.body(node);
    this.functions.push(`function ${name}(v: any, p?: IssuePath): boolean {\n${indent(body)}\n}`);
    return name;
  }

  /** A boolean expression checking the value `v` whose path is `path` (evaluated only when `p` is set). */
  private expression(node: SchemaNode, v: string, path: string): string {
    switch (node.kind) {
      case 'ref':
        return `${checkName(node.name)}(${v}, ${path})`;
      case 'any':
        return 'true';
      case 'never':
        return `${this.use('invalidType')}(${path}, 'never', ${v})`;
      case 'null':
        return `(${v} === null || ${this.use('invalidType')}(${path}, 'null', ${v}))`;
      case 'boolean':
        if (node.enum) return this.literals(node.enum, v, path);
        return `(typeof ${v} === 'boolean' || ${this.use('invalidType')}(${path}, 'boolean', ${v}))`;
      case 'string':
        if (node.enum) return this.literals(node.enum, v, path);
        if (node.minLength === undefined && node.maxLength === undefined && node.pattern === undefined)
          return `(typeof ${v} === 'string' || ${this.use('invalidType')}(${path}, 'string', ${v}))`;
        return `${this.use('string')}(${v}, ${path}, ${node.minLength ?? 'undefined'}, ${node.maxLength ?? 'undefined'}, ${node.pattern !== undefined ? this.pattern(node.pattern) : 'undefined'})`;
      case 'number': {
        if (node.enum) return this.literals(node.enum, v, path);
        const bounds = [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum];
        if (bounds.every((b) => b === undefined))
          return node.integer
            ? `(Number.isInteger(${v}) || ${this.use('invalidType')}(${path}, 'integer', ${v}))`
            : `(Number.isFinite(${v}) || ${this.use('invalidType')}(${path}, 'number', ${v}))`;
        return `${this.use('number')}(${v}, ${path}, ${node.integer}, ${bounds.map((b) => b ?? 'undefined').join(', ')})`;
      }
      case 'array':
      case 'object':
        return `${this.functionFor(node)}(${v}, ${path})`;
      case 'union': {
        const shape = this.analysis.unionShape(node);
        switch (shape.kind) {
          case 'never':
            return `${this.use('invalidType')}(${path}, 'never', ${v})`;
          case 'single':
            return this.expression(shape.member, v, path);
          case 'nullable':
            return `(${v} === null || ${this.expression(shape.member, v, path)})`;
          case 'discriminated':
            return `${this.functionFor(node)}(${v}, ${path})`;
          case 'union': {
            const members = shape.members.map((m) => this.functionFor(m));
            const expected = JSON.stringify(this.expected(node));
            return `(${members.map((m) => `${m}(${v})`).join(' || ')} || (p !== undefined && ${this.use('union')}(${v}, (${path})!, [${members.join(', ')}], ${expected})))`;
          }
          case 'xor': {
            const members = this.constant(`[${shape.members.map((m) => this.functionFor(m)).join(', ')}]`);
            return `${this.use('exactlyOne')}(${v}, ${path}, ${members}, ${JSON.stringify(this.expected(node))})`;
          }
        }
      }
    }
  }

  private literals(values: Array<string | number | boolean>, v: string, path: string): string {
    const unique = [...new Set(values)];
    const tests = unique.map((value) => `${v} === ${JSON.stringify(value)}`);
    return `(${[...tests, `${this.use('invalidValue')}(${path}, ${literalArray(unique)}, ${v})`].join(' || ')})`;
  }

  /** What a node allows, for messages: its literals or its JSON types. */
  private expected(node: SchemaNode): string {
    const resolved = this.analysis.resolve(node);
    if ((resolved.kind === 'string' || resolved.kind === 'number' || resolved.kind === 'boolean') && resolved.enum)
      return resolved.enum.map((v) => JSON.stringify(v)).join(' | ');
    const types = [...this.analysis.jsonTypes(node)];
    if (types.length === 6) return 'any value';
    return types.length === 0 ? 'never' : types.join(' | ');
  }
}

function accessor(object: string, key: string): string {
  const name = propertyKey(key);
  return name === key ? `${object}.${key}` : `${object}[${name}]`;
}

function literalArray(values: unknown[]): string {
  return `[${values.map((v) => (v === undefined ? 'undefined' : JSON.stringify(v))).join(', ')}]`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}
