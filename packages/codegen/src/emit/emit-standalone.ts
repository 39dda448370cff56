import { ABSENT, type DiscriminationPlan, type ModelAnalysis } from '../model/analysis.js';
import type { NamedSchema, ObjectNode, SchemaNode } from '../model/schema-model.js';
import { propertyKey } from './docs.js';

/**
 * Emits plain validator functions, equivalent to the JSON Schema, two per named schema:
 * - `is_<Name>(v)` only answers: one boolean expression per object (a chain of inline `typeof`/`===`
 *   tests), a `switch` on the tag for discriminated unions, nothing allocated. Kept small on purpose, so
 *   that V8 inlines them into each other (the reporting code of a combined check made most of them too
 *   big to inline, which cost about a fifth of the time on a `ResponseResource`).
 * - `report_<Name>(v, p)` runs only on a value that failed: it reports every issue at the path of the
 *   field that is wrong, descending only where a field's `is` test fails.
 * One set serves both modes: open unions read the run-time `mode.forward` flag (set by the entry points)
 * where a `type` is unknown, so forward-compatible mode costs no second copy.
 */
export function emitStandaloneChecks(analysis: ModelAnalysis, runtimeModule: string, header: string): string {
  const emitter = new CheckEmitter(analysis);
  for (const schema of analysis.model.schemas) emitter.schemaFunctions(schema);
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

/** The name of a named schema's boolean test. */
export const testName = (name: string): string => `is_${name}`;
/** The name of a named schema's reporting check (run on a value its test rejected). */
export const reportName = (name: string): string => `report_${name}`;

/** Up to this many known `type`s, an open union tests them with `!==` rather than a `Set`. */
const INLINE_KNOWN_TYPES = 4;

class CheckEmitter {
  readonly functions: string[] = [];
  readonly constants: string[] = [];
  readonly runtime = new Set<string>();
  private readonly patterns = new Map<string, string>();
  /** Hoisted function pairs of inline nodes, by node, so that the test and the report share one. */
  private readonly hoistedNames = new Map<SchemaNode, string>();
  /** Constant arrays of union members' functions, by their text. */
  private readonly tables = new Map<string, string>();
  private prefix = '';
  private hoisted = 0;

  constructor(private readonly analysis: ModelAnalysis) {}

  private use(name: string): string {
    this.runtime.add(name);
    return name;
  }

  schemaFunctions(schema: NamedSchema): void {
    this.prefix = schema.name;
    this.hoisted = 0;
    const node = schema.node;
    const shape = node.kind === 'union' ? this.analysis.unionShape(node) : undefined;
    const test = testName(schema.name);
    let isBody: string;
    let reportBody: string;
    if (schema.open && shape?.kind === 'discriminated' && shape.plan.key === 'type') {
      // The switch's default branch is exactly "a `type` no member declares": unknown members pass there.
      isBody = this.discriminatedTest(shape.plan, true);
      reportBody = this.discriminatedReport(shape.plan, true, test);
    } else if (schema.open) {
      const unknown = `if (${this.use('mode')}.forward && ${this.use('isObject')}(v) && typeof v.type === 'string' && ${this.unknownType(this.analysis.openUnionTypes(node))}) return true;`;
      isBody = `${unknown}\n${this.testBody(node)}`;
      reportBody = `${unknown}\n${this.reportBody(node, test)}`;
    } else {
      isBody = this.testBody(node);
      reportBody = this.reportBody(node, test);
    }
    const note = schema.open ? ' Forward-compatible mode also accepts members of unknown `type`.' : '';
    this.functions.push(
      `/** Whether a value is a valid {@link ${schema.name}}.${note} */\nexport function ${test}(v: any): boolean {\n${indent(isBody)}\n}`,
      `/** Reports why a value that {@link ${test}} rejected is not a valid {@link ${schema.name}}. */\nexport function ${reportName(schema.name)}(v: any, p: IssuePath): boolean {\n${indent(reportBody)}\n}`,
    );
  }

  /** `v.type` is none of `known` (a `Set` past a few values). */
  private unknownType(known: Array<string | null>): string {
    if (known.length <= INLINE_KNOWN_TYPES) return known.map((t) => `v.type !== ${JSON.stringify(t)}`).join(' && ');
    return `!${this.constant(`/*#__PURE__*/ new Set<unknown>(${JSON.stringify(known)})`)}.has(v.type)`;
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

  // ---- the tests: boolean only ----

  /** Statements of an `is_` function over `v` that return the verdict. */
  private testBody(node: SchemaNode): string {
    switch (node.kind) {
      case 'object':
        return this.objectTest(node);
      case 'array': {
        const bad = [`!Array.isArray(v)`];
        if (node.minItems !== undefined && node.minItems > 0) bad.push(`v.length < ${node.minItems}`);
        if (node.maxItems !== undefined) bad.push(`v.length > ${node.maxItems}`);
        const lines = [`if (${bad.join(' || ')}) return false;`];
        if (node.items.kind !== 'any')
          lines.push(`for (let i = 0; i < v.length; i++) if (${not(this.test(node.items, 'v[i]'))}) return false;`);
        lines.push('return true;');
        return lines.join('\n');
      }
      case 'union': {
        const shape = this.analysis.unionShape(node);
        if (shape.kind === 'discriminated') return this.discriminatedTest(shape.plan, false);
        return `return ${this.test(node, 'v')};`;
      }
      default:
        return `return ${this.test(node, 'v')};`;
    }
  }

  /** The tests of an object's properties (but `skip`, a tag its caller has tested), to join with `&&`. */
  private propertyTerms(node: ObjectNode, skip?: string): string[] {
    const terms: string[] = [];
    for (const property of node.properties) {
      const access = accessor('v', property.name);
      if (property.name === skip) continue;
      if (property.disallowed) terms.push(`${access} === undefined`);
      else if (property.required) terms.push(this.requiredTest(property.node, access));
      else if (property.node.kind !== 'any')
        terms.push(`(${access} === undefined || ${this.test(property.node, access)})`);
    }
    return terms;
  }

  /**
   * A discriminated member's test inside the union's switch, whose case has tested that `v` is an object
   * and its tag: the rest of an object member's terms, inline (no call, no second object and tag test).
   * Undefined for a member that needs more than an expression (key loops, counts) or is not an object.
   */
  private memberTerms(member: SchemaNode, key: string): string | undefined {
    const node = this.analysis.resolve(member);
    if (node.kind !== 'object' || node.additional === 'none' || node.minProperties || node.maxProperties !== undefined)
      return undefined;
    if (typeof node.additional === 'object' && node.additional.kind !== 'any') return undefined;
    const terms = this.propertyTerms(node, key);
    return terms.length === 0 ? 'true' : terms.join(' && ');
  }

  private objectTest(node: ObjectNode): string {
    const terms = [`${this.use('isObject')}(v)`, ...this.propertyTerms(node)];
    const known = node.properties.map((p) => JSON.stringify(p.name));
    const loops: string[] = [];
    if (node.additional === 'none')
      loops.push(
        known.length === 0
          ? 'for (const k in v) return false;'
          : `for (const k in v) switch (k) {\n  ${known.map((k) => `case ${k}:`).join(' ')}\n    break;\n  default: return false;\n}`,
      );
    else if (typeof node.additional === 'object' && node.additional.kind !== 'any') {
      const skip = known.length > 0 ? `if (${known.map((k) => `k === ${k}`).join(' || ')}) continue; ` : '';
      loops.push(`for (const k in v) { ${skip}if (${not(this.test(node.additional, 'v[k]'))}) return false; }`);
    }
    const counted = (node.minProperties ?? 0) > 0 || node.maxProperties !== undefined;
    const count = `${this.use('keyCount')}(v, undefined, ${node.minProperties ?? 'undefined'}, ${node.maxProperties ?? 'undefined'})`;
    if (loops.length === 0) return `return ${[...terms, ...(counted ? [count] : [])].join(' && ')};`;
    return [`if (!(${terms.join(' && ')})) return false;`, ...loops, `return ${counted ? count : 'true'};`].join('\n');
  }

  /** A required property's test: absent fails it (a test that any value passes gets an explicit check). */
  private requiredTest(node: SchemaNode, access: string): string {
    const test = this.test(node, access);
    return this.analysis.jsonTypes(node).size === 6 ? `(${access} !== undefined && ${test})` : test;
  }

  private discriminatedTest(plan: DiscriminationPlan, open: boolean): string {
    return [`if (!${this.use('isObject')}(v)) return false;`, this.testSwitch(plan, open)].join('\n');
  }

  private testSwitch(plan: DiscriminationPlan, open: boolean): string {
    const access = accessor('v', plan.key);
    // A switch on strings tests its cases in order, and a stream is nearly all deltas: their cases go first.
    const delta = (branch: DiscriminationPlan['branches'][number]) =>
      branch.values.some((value) => typeof value === 'string' && value.endsWith('.delta'));
    const ordered = [...plan.branches.filter(delta), ...plan.branches.filter((b) => !delta(b))];
    const cases = ordered.map((branch) => {
      const action =
        'member' in branch
          ? `return ${this.memberTerms(branch.member, plan.key) ?? this.test(branch.member, 'v')};`
          : `\n${indent(this.testSwitch(branch.nested, false))}`;
      return `${caseLabels(branch.values)} ${action}`;
    });
    cases.push(`default: return ${open ? `${this.use('mode')}.forward && typeof ${access} === 'string'` : 'false'};`);
    return `switch (${access}) {\n${indent(cases.join('\n'))}\n}`;
  }

  /** A boolean expression: whether the value `v` is valid. Evaluates `v` more than once (it is a variable or a property). */
  private test(node: SchemaNode, v: string): string {
    switch (node.kind) {
      case 'ref':
        return `${testName(node.name)}(${v})`;
      case 'any':
        return 'true';
      case 'never':
        return 'false';
      case 'null':
        return `${v} === null`;
      case 'boolean':
        if (node.enum) return literalTest(node.enum, v);
        return `typeof ${v} === 'boolean'`;
      case 'string':
        if (node.enum) return literalTest(node.enum, v);
        if (node.minLength === undefined && node.maxLength === undefined && node.pattern === undefined)
          return `typeof ${v} === 'string'`;
        return `${this.use('isString')}(${v}, ${node.minLength ?? 'undefined'}, ${node.maxLength ?? 'undefined'}, ${node.pattern !== undefined ? this.pattern(node.pattern) : 'undefined'})`;
      case 'number': {
        if (node.enum) return literalTest(node.enum, v);
        const terms = [node.integer ? `Number.isInteger(${v})` : `Number.isFinite(${v})`];
        if (node.minimum !== undefined) terms.push(`${v} >= ${node.minimum}`);
        if (node.maximum !== undefined) terms.push(`${v} <= ${node.maximum}`);
        if (node.exclusiveMinimum !== undefined) terms.push(`${v} > ${node.exclusiveMinimum}`);
        if (node.exclusiveMaximum !== undefined) terms.push(`${v} < ${node.exclusiveMaximum}`);
        return terms.length === 1 ? terms[0]! : `(${terms.join(' && ')})`;
      }
      case 'array':
      case 'object':
        return `${testName(this.hoist(node))}(${v})`;
      case 'union': {
        const shape = this.analysis.unionShape(node);
        switch (shape.kind) {
          case 'never':
            return 'false';
          case 'single':
            return this.test(shape.member, v);
          case 'nullable':
            return `(${v} === null || ${this.test(shape.member, v)})`;
          case 'discriminated':
            return `${testName(this.hoist(node))}(${v})`;
          case 'union':
            return `(${shape.members.map((m) => this.test(m, v)).join(' || ')})`;
          case 'xor':
            return `${this.use('exactlyOneOf')}(${v}, ${this.memberTable(shape.members, testName)})`;
        }
      }
    }
  }

  // ---- the reports: every issue at its path, run only where a test failed ----

  /** Statements of a `report_` function over `v` and `p` (`self` names the union's own test, for retagging). */
  private reportBody(node: SchemaNode, self: string): string {
    switch (node.kind) {
      case 'object':
        return this.objectReport(node);
      case 'array': {
        const lines = [`if (!Array.isArray(v)) return ${this.use('invalidType')}(p, 'array', v);`, 'let ok = true;'];
        if (node.minItems !== undefined && node.minItems > 0)
          lines.push(`if (v.length < ${node.minItems}) ok = ${this.use('tooFewItems')}(p, ${node.minItems});`);
        if (node.maxItems !== undefined)
          lines.push(`if (v.length > ${node.maxItems}) ok = ${this.use('tooManyItems')}(p, ${node.maxItems});`);
        if (node.items.kind !== 'any')
          lines.push(
            `for (let i = 0; i < v.length; i++) if (${not(this.test(node.items, 'v[i]'))}) ok = ${this.reporter(node.items)}(v[i], [...p, i]);`,
          );
        lines.push('return ok;');
        return lines.join('\n');
      }
      case 'union': {
        const shape = this.analysis.unionShape(node);
        if (shape.kind === 'discriminated') return this.discriminatedReport(shape.plan, false, self);
        return `return ${this.report(node, 'v', 'p')};`;
      }
      default:
        return `return ${this.report(node, 'v', 'p')};`;
    }
  }

  private objectReport(node: ObjectNode): string {
    const lines = [
      `if (!${this.use('isObject')}(v)) return ${this.use('invalidType')}(p, 'object', v);`,
      'let ok = true;',
    ];
    const rows: string[] = [];
    for (const property of node.properties) {
      const key = JSON.stringify(property.name);
      const access = accessor('v', property.name);
      if (property.disallowed) {
        lines.push(`if (${access} !== undefined) ok = ${this.use('disallowed')}(p, ${key}, ${access});`);
        continue;
      }
      const expected = JSON.stringify(this.expected(property.node));
      if (property.node.kind === 'any') {
        if (property.required)
          lines.push(`if (${access} === undefined) ok = ${this.use('missing')}(p, ${key}, ${expected});`);
        continue;
      }
      // A row per field for the runtime's `fields`: the reports are the bulk of a bundle, and data is
      // about a third smaller than a statement per field.
      const flags = (property.required ? 0 : 1) | (this.isNullable(property.node) ? 2 : 0);
      const literals = this.literalsOf(property.node);
      const node = this.nonNull(property.node);
      rows.push(
        literals
          ? `[${key}, ${literalArray(literals)}${flags ? `, ${flags}` : ''}]`
          : `[${key}, ${this.tester(node)}, ${this.reporter(node)}, ${expected}${flags ? `, ${flags}` : ''}]`,
      );
    }
    if (rows.length > 0)
      lines.push(`if (!${this.use('fields')}(v, p, ${this.shared(`[${rows.join(', ')}]`)})) ok = false;`);
    const known = node.properties.map((p) => JSON.stringify(p.name));
    if (node.additional === 'none') {
      const unknown = `ok = ${this.use('unrecognizedKey')}(p, k);`;
      lines.push(
        known.length === 0
          ? `for (const k in v) ${unknown}`
          : `for (const k in v) switch (k) {\n  ${known.map((k) => `case ${k}:`).join(' ')}\n    break;\n  default: ${unknown}\n}`,
      );
    } else if (typeof node.additional === 'object' && node.additional.kind !== 'any') {
      const skip = known.length > 0 ? `if (${known.map((k) => `k === ${k}`).join(' || ')}) continue; ` : '';
      lines.push(
        `for (const k in v) { ${skip}if (${not(this.test(node.additional, 'v[k]'))}) ok = ${this.reporter(node.additional)}(v[k], [...p, k]); }`,
      );
    }
    if ((node.minProperties ?? 0) > 0 || node.maxProperties !== undefined)
      lines.push(
        `if (!${this.use('keyCount')}(v, p, ${node.minProperties ?? 'undefined'}, ${node.maxProperties ?? 'undefined'})) ok = false;`,
      );
    lines.push('return ok;');
    // Only the fields to report: one call.
    if (lines.length === 4 && rows.length > 0)
      lines.splice(1, 3, `return ${this.use('fields')}(v, p, ${this.shared(`[${rows.join(', ')}]`)});`);
    return lines.join('\n');
  }

  /**
   * A discriminated union's report is data: the runtime's `tagged` picks the member's report by the tag
   * from the union's table, reports the tag itself when it is what is wrong, and an unknown tag at the tag.
   */
  private discriminatedReport(plan: DiscriminationPlan, open: boolean, self: string): string {
    return `return ${this.use('tagged')}(v, p, ${JSON.stringify(plan.key)}, ${this.tagTable(plan)}, ${self}, ${open});`;
  }

  /**
   * The table of a plan: a row per tag value with the fields its members declare that not every member
   * does (the evidence `retagged` weighs), then the member's report, or the key and table of a nested plan.
   */
  private tagTable(plan: DiscriminationPlan): string {
    const declared = plan.branches.map((branch) =>
      this.declaredKeys('member' in branch ? branch.member : branch.nested),
    );
    const everywhere = new Set([...declared[0]!].filter((k) => declared.every((keys) => keys.has(k))));
    const rows = plan.branches.flatMap((branch, i) => {
      const keys = JSON.stringify([...declared[i]!].filter((k) => !everywhere.has(k)));
      const target =
        'member' in branch
          ? reportName(this.hoist(branch.member))
          : `${JSON.stringify(branch.nested.key)}, ${this.tagTable(branch.nested)}`;
      return branch.values.map((value) => `[${literalArray([value]).slice(1, -1)}, ${keys}, ${target}]`);
    });
    return this.shared(`[${rows.join(', ')}]`);
  }

  /** The property names a member (or every member of a nested plan) declares. */
  private declaredKeys(member: SchemaNode | DiscriminationPlan): Set<string> {
    if ('branches' in member)
      return new Set(member.branches.flatMap((b) => [...this.declaredKeys('member' in b ? b.member : b.nested)]));
    const node = this.analysis.resolve(member);
    if (node.kind === 'object') return new Set(node.properties.map((p) => p.name));
    if (node.kind === 'union') return new Set(node.members.flatMap((m) => [...this.declaredKeys(m)]));
    return new Set();
  }

  /**
   * A boolean expression that reports the issues of `v` at `path`. Reports run only on a value that failed
   * its test (a field's, a union member's, the entry point's), so a leaf reports without testing again.
   */
  private report(node: SchemaNode, v: string, path: string): string {
    switch (node.kind) {
      case 'ref':
        return `${reportName(node.name)}(${v}, ${path})`;
      case 'any':
        return 'true';
      case 'never':
        return `${this.use('invalidType')}(${path}, 'never', ${v})`;
      case 'null':
        return `${this.use('invalidType')}(${path}, 'null', ${v})`;
      case 'boolean':
        if (node.enum) return this.literalReport(node.enum, v, path);
        return `${this.use('invalidType')}(${path}, 'boolean', ${v})`;
      case 'string':
        if (node.enum) return this.literalReport(node.enum, v, path);
        if (node.minLength === undefined && node.maxLength === undefined && node.pattern === undefined)
          return `${this.use('invalidType')}(${path}, 'string', ${v})`;
        return `${this.use('string')}(${v}, ${path}, ${node.minLength ?? 'undefined'}, ${node.maxLength ?? 'undefined'}, ${node.pattern !== undefined ? this.pattern(node.pattern) : 'undefined'})`;
      case 'number': {
        if (node.enum) return this.literalReport(node.enum, v, path);
        const bounds = [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum];
        if (bounds.every((b) => b === undefined))
          return `${this.use('invalidType')}(${path}, ${node.integer ? "'integer'" : "'number'"}, ${v})`;
        return `${this.use('number')}(${v}, ${path}, ${node.integer}, ${bounds.map((b) => b ?? 'undefined').join(', ')})`;
      }
      case 'array':
      case 'object':
        return `${reportName(this.hoist(node))}(${v}, ${path})`;
      case 'union': {
        const shape = this.analysis.unionShape(node);
        switch (shape.kind) {
          case 'never':
            return `${this.use('invalidType')}(${path}, 'never', ${v})`;
          case 'single':
            return this.report(shape.member, v, path);
          case 'nullable':
            return this.report(shape.member, v, path);
          case 'discriminated':
            return `${reportName(this.hoist(node))}(${v}, ${path})`;
          case 'union':
            return `${this.use('union')}(${v}, ${path}, ${this.memberTable(shape.members, reportName)}, ${JSON.stringify(this.expected(node))})`;
          case 'xor':
            return `${this.use('exactlyOne')}(${v}, ${path}, ${this.memberTable(shape.members, testName)}, ${this.memberTable(shape.members, reportName)}, ${JSON.stringify(this.expected(node))})`;
        }
      }
    }
  }

  /** A function `(value)` testing a value against `node` (a named schema's, the runtime's for a plain type, or a hoisted one). */
  private tester(node: SchemaNode): string {
    switch (node.kind) {
      case 'ref':
        return testName(node.name);
      case 'boolean':
        if (!node.enum) return this.use('isBoolean');
        break;
      case 'string':
        if (!node.enum && node.minLength === undefined && node.maxLength === undefined && node.pattern === undefined)
          return this.use('isText');
        break;
      case 'number':
        if (
          !node.enum &&
          [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum].every((b) => b === undefined)
        )
          return this.use(node.integer ? 'isInteger' : 'isNumber');
        break;
    }
    return testName(this.hoist(node));
  }

  /** A function `(value, path)` reporting the issues of a value that failed `node`'s test. */
  private reporter(node: SchemaNode): string {
    switch (node.kind) {
      case 'ref':
        return reportName(node.name);
      case 'boolean':
        if (!node.enum) return this.use('reportBoolean');
        break;
      case 'string':
        if (!node.enum && node.minLength === undefined && node.maxLength === undefined && node.pattern === undefined)
          return this.use('reportString');
        break;
      case 'number':
        if (
          !node.enum &&
          [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum].every((b) => b === undefined)
        )
          return this.use(node.integer ? 'reportInteger' : 'reportNumber');
        break;
      case 'union': {
        // A value that failed a nullable's test is not null: its member's report says why.
        const shape = this.analysis.unionShape(node);
        if (shape.kind === 'single' || shape.kind === 'nullable') return this.reporter(shape.member);
        break;
      }
    }
    return reportName(this.hoist(node));
  }

  private literalReport(values: Array<string | number | boolean>, v: string, path: string): string {
    return `${this.use('invalidValue')}(${path}, ${literalArray([...new Set(values)])}, ${v})`;
  }

  private isNullable(node: SchemaNode): boolean {
    return node.kind === 'union' && this.analysis.unionShape(node).kind === 'nullable';
  }

  /** A nullable's member (what a non-null value must be); any other node itself. */
  private nonNull(node: SchemaNode): SchemaNode {
    if (node.kind !== 'union') return node;
    const shape = this.analysis.unionShape(node);
    return shape.kind === 'nullable' ? shape.member : node;
  }

  /** A module constant with this initializer, one per distinct text. */
  private shared(initializer: string): string {
    let constant = this.tables.get(initializer);
    if (!constant) this.tables.set(initializer, (constant = this.constant(initializer)));
    return constant;
  }

  /** The values of an inline enum (not a named one: that has its own report). */
  private literalsOf(node: SchemaNode): Array<string | number | boolean> | undefined {
    if ((node.kind === 'string' || node.kind === 'number' || node.kind === 'boolean') && node.enum)
      return [...new Set<string | number | boolean>(node.enum)];
    return undefined;
  }

  // ---- hoisting ----

  /** The name (after `is_`/`report_`) of the function pair checking an inline node (a named schema's own for a ref). */
  private hoist(node: SchemaNode): string {
    if (node.kind === 'ref') return node.name;
    const known = this.hoistedNames.get(node);
    if (known) return known;
    const name = `${this.prefix}$${++this.hoisted}`;
    this.hoistedNames.set(node, name);
    const test = testName(name);
    this.functions.push(
      `function ${test}(v: any): boolean {\n${indent(this.testBody(node))}\n}`,
      `function ${reportName(name)}(v: any, p: IssuePath): boolean {\n${indent(this.reportBody(node, test))}\n}`,
    );
    return name;
  }

  /** A constant array of the members' tests or reports (one per union, shared by its uses). */
  private memberTable(members: SchemaNode[], name: (hoisted: string) => string): string {
    return this.shared(`[${members.map((m) => name(this.hoist(m))).join(', ')}]`);
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

/** The negation of a boolean expression. */
function not(test: string): string {
  return /^[\w$.]+\(.*\)$/.test(test) && !test.includes(' ') ? `!${test}` : `!(${test})`;
}

function caseLabels(values: DiscriminationPlan['branches'][number]['values']): string {
  return values.map((value) => `case ${value === ABSENT ? 'undefined' : JSON.stringify(value)}:`).join(' ');
}

function literalTest(values: Array<string | number | boolean>, v: string): string {
  const tests = [...new Set(values)].map((value) => `${v} === ${JSON.stringify(value)}`);
  return tests.length === 1 ? tests[0]! : `(${tests.join(' || ')})`;
}

function accessor(object: string, key: string): string {
  const name = propertyKey(key);
  return name === key ? `${object}.${key}` : `${object}[${name}]`;
}

function literalArray(values: unknown[]): string {
  return `[${values.map((v) => (v === undefined || v === ABSENT ? 'undefined' : JSON.stringify(v))).join(', ')}]`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
}
