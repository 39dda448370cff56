import type { NamedSchema, ObjectNode, SchemaNode, SpecModel, UnionNode } from './schema-model.js';

/** Spec-exact (what the JSON Schema accepts) or forward-compatible (open unions also take unknown `type`s). */
export type ValidationMode = 'exact' | 'forward';

/**
 * How a union is lowered, the same for every validator target: a nullable member, a (nested)
 * discriminated union, a plain union where members cannot overlap, or an exclusive one (`oneOf` whose
 * members may overlap: exactly one must match).
 */
export type UnionShape =
  | {
      /** No member can match. */
      kind: 'never';
    }
  | {
      /** One member (`single`), or one member or null (`nullable`). */
      kind: 'single' | 'nullable';
      /** That member. */
      member: SchemaNode;
    }
  | {
      /** Told apart by a property's literal values. */
      kind: 'discriminated';
      /** How: the key and each branch's values. */
      plan: DiscriminationPlan;
    }
  | {
      /** Members that cannot overlap (`union`), or `oneOf` members that may (`xor`: exactly one must match). */
      kind: 'union' | 'xor';
      /** The members. */
      members: SchemaNode[];
    };

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';
const ALL_JSON_TYPES: JsonType[] = ['string', 'number', 'boolean', 'null', 'object', 'array'];

/** Marks "the property may be absent" in a discriminator's value set. */
export const ABSENT = Symbol('absent');
export type DiscriminatorValue = string | number | boolean | null | typeof ABSENT;

/** How a union is told apart: by one property's literal values, possibly nested (the `message` items by `role`). */
export interface DiscriminationPlan {
  key: string;
  branches: Array<
    { values: DiscriminatorValue[]; member: SchemaNode } | { values: DiscriminatorValue[]; nested: DiscriminationPlan }
  >;
}

/** Questions the emitters ask about the model: reference resolution, JSON types, discriminators, cycles. */
export class ModelAnalysis {
  private readonly byName = new Map<string, NamedSchema>();
  private readonly openDependency = new Map<string, boolean>();

  /** Analyses `model`. */
  constructor(
    /** The model analysed. */
    readonly model: SpecModel,
  ) {
    for (const schema of model.schemas) this.byName.set(schema.name, schema);
  }

  /** The named schema `name` (throws when there is none). */
  schema(name: string): NamedSchema {
    const schema = this.byName.get(name);
    if (!schema) throw new Error(`Unknown schema ${name}`);
    return schema;
  }

  /** Follows `$ref`s until a node that is not one. */
  resolve(node: SchemaNode, seen = new Set<string>()): SchemaNode {
    if (node.kind !== 'ref') return node;
    if (seen.has(node.name)) return { kind: 'any', annotations: {} };
    seen.add(node.name);
    return this.resolve(this.schema(node.name).node, seen);
  }

  /** The JSON types a node's values can have. */
  jsonTypes(node: SchemaNode, seen = new Set<string>()): Set<JsonType> {
    switch (node.kind) {
      case 'ref':
        if (seen.has(node.name)) return new Set(ALL_JSON_TYPES);
        return this.jsonTypes(this.schema(node.name).node, new Set(seen).add(node.name));
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
      case 'object':
      case 'array':
        return new Set([node.kind]);
      case 'any':
        return new Set(ALL_JSON_TYPES);
      case 'never':
        return new Set();
      case 'union':
        return new Set(node.members.flatMap((m) => [...this.jsonTypes(m, seen)]));
    }
  }

  /** The literal values a member allows for `key`, or undefined when it does not pin the key down. */
  discriminatorValues(member: SchemaNode, key: string): DiscriminatorValue[] | undefined {
    const node = this.resolve(member);
    if (node.kind === 'union') {
      const all: DiscriminatorValue[] = [];
      for (const m of node.members) {
        const values = this.discriminatorValues(m, key);
        if (!values) return undefined;
        all.push(...values);
      }
      return all;
    }
    if (node.kind !== 'object') return undefined;
    const property = node.properties.find((p) => p.name === key);
    if (!property) return undefined;
    const values = this.literals(property.node);
    if (!values) return undefined;
    return property.required ? values : [...values, ABSENT];
  }

  private literals(node: SchemaNode): DiscriminatorValue[] | undefined {
    const resolved = this.resolve(node);
    switch (resolved.kind) {
      case 'string':
      case 'number':
      case 'boolean':
        return resolved.enum ? [...resolved.enum] : undefined;
      case 'null':
        return [null];
      case 'union': {
        const all: DiscriminatorValue[] = [];
        for (const m of resolved.members) {
          const values = this.literals(m);
          if (!values) return undefined;
          all.push(...values);
        }
        return all;
      }
      default:
        return undefined;
    }
  }

  /**
   * A plan to tell the members apart by literal property values, nesting where several members share
   * a value (four `message` variants told apart by `role`). Undefined when no such plan exists.
   */
  discriminate(members: SchemaNode[], preferredKey: string | undefined): DiscriminationPlan | undefined {
    const keys = preferredKey
      ? [preferredKey, ...this.candidateKeys(members).filter((k) => k !== preferredKey)]
      : this.candidateKeys(members);
    for (const key of keys) {
      const plan = this.planFor(members, key);
      if (plan) return plan;
    }
    return undefined;
  }

  private candidateKeys(members: SchemaNode[]): string[] {
    const first = this.resolve(members[0]!);
    if (first.kind !== 'object') return [];
    return first.properties.filter((p) => this.literals(p.node)).map((p) => p.name);
  }

  private planFor(members: SchemaNode[], key: string): DiscriminationPlan | undefined {
    const sets = members.map((m) => this.discriminatorValues(m, key));
    if (sets.some((s) => s === undefined)) return undefined;
    // Group members whose value sets are identical; distinct groups must not overlap.
    const groups: Array<{ values: DiscriminatorValue[]; members: SchemaNode[] }> = [];
    members.forEach((member, i) => {
      const values = sets[i]!;
      const same = groups.find((g) => sameValues(g.values, values));
      if (same) same.members.push(member);
      else groups.push({ values, members: [member] });
    });
    for (let a = 0; a < groups.length; a++) {
      for (let b = a + 1; b < groups.length; b++) {
        if (groups[a]!.values.some((v) => groups[b]!.values.includes(v))) return undefined;
      }
    }
    const branches: DiscriminationPlan['branches'] = [];
    for (const group of groups) {
      if (group.members.length === 1) {
        branches.push({ values: group.values, member: group.members[0]! });
        continue;
      }
      const nestedKeys = this.candidateKeys(group.members).filter((k) => k !== key);
      const nested = nestedKeys.map((k) => this.planFor(group.members, k)).find(Boolean);
      if (!nested) return undefined;
      branches.push({ values: group.values, nested });
    }
    return { key, branches };
  }

  /** Whether two members can both accept some value (conservative: true unless provably disjoint). */
  mayOverlap(a: SchemaNode, b: SchemaNode): boolean {
    const typesA = this.jsonTypes(a);
    const typesB = this.jsonTypes(b);
    const shared = [...typesA].filter((t) => typesB.has(t));
    if (shared.length === 0) return false;
    if (shared.length === 1 && shared[0] === 'string') {
      const ra = this.resolve(a);
      const rb = this.resolve(b);
      if (ra.kind === 'string' && rb.kind === 'string' && ra.enum && rb.enum)
        return ra.enum.some((v) => rb.enum!.includes(v));
    }
    if (shared.length === 1 && shared[0] === 'object') return this.discriminate([a, b], undefined) === undefined;
    return true;
  }

  /** How a union is emitted (see `UnionShape`). */
  unionShape(node: UnionNode): UnionShape {
    const members = node.members.filter((m) => m.kind !== 'never');
    if (members.length === 0) return { kind: 'never' };
    if (members.length === 1) return { kind: 'single', member: members[0]! };
    const nonNull = members.filter((m) => m.kind !== 'null');
    if (nonNull.length === members.length - 1 && nonNull.length === 1) return { kind: 'nullable', member: nonNull[0]! };
    if (node.mode === 'oneOf' || node.discriminator) {
      const plan = this.discriminate(members, node.discriminator);
      if (plan) return { kind: 'discriminated', plan };
      if (node.discriminator) {
        throw new Error(
          `The union discriminated by "${node.discriminator}" has members that cannot be told apart by it`,
        );
      }
    }
    if (node.mode === 'anyOf') return { kind: 'union', members };
    // oneOf means exactly one member matches: a plain union is exact only when members cannot overlap.
    const overlapping = members.some((a, i) => members.slice(i + 1).some((b) => this.mayOverlap(a, b)));
    return { kind: overlapping ? 'xor' : 'union', members };
  }

  /** The `type` values an open union's members declare: forward-compatible mode treats any other as unknown. */
  openUnionTypes(node: SchemaNode): Array<string | null> {
    if (node.kind !== 'union') throw new Error('Only unions are open');
    const values = node.members.flatMap((m) => this.discriminatorValues(m, 'type') ?? []);
    return [
      ...new Set(values.filter((v): v is string | null => v !== ABSENT && (typeof v === 'string' || v === null))),
    ];
  }

  /** Whether a schema (transitively) contains a union that forward-compatible mode opens. */
  dependsOnOpenUnion(name: string, stack = new Set<string>()): boolean {
    const cached = this.openDependency.get(name);
    if (cached !== undefined) return cached;
    if (stack.has(name)) return false;
    stack.add(name);
    const schema = this.schema(name);
    const result = schema.open || this.refsOf(schema.node).some((ref) => this.dependsOnOpenUnion(ref, stack));
    stack.delete(name);
    if (stack.size === 0) this.openDependency.set(name, result);
    return result;
  }

  /** The named schemas a node references, directly or through its members. */
  refsOf(node: SchemaNode): string[] {
    switch (node.kind) {
      case 'ref':
        return [node.name];
      case 'array':
        return this.refsOf(node.items);
      case 'object':
        return [
          ...node.properties.flatMap((p) => this.refsOf(p.node)),
          ...(typeof node.additional === 'object' ? this.refsOf(node.additional) : []),
        ];
      case 'union':
        return node.members.flatMap((m) => this.refsOf(m));
      default:
        return [];
    }
  }

  /**
   * Declaration order for emitted constants: every schema after the ones it references. Schemas on a
   * reference cycle are returned in `cyclic` and must be referenced lazily.
   */
  declarationOrder(): {
    /** Every schema after the ones it references. */
    order: NamedSchema[];
    /** The schemas on a reference cycle. */
    cyclic: Set<string>;
  } {
    const order: NamedSchema[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const cyclic = new Set<string>();
    const visit = (name: string, path: string[]) => {
      const current = state.get(name);
      if (current === 'done') return;
      if (current === 'visiting') {
        for (const n of path.slice(path.indexOf(name))) cyclic.add(n);
        return;
      }
      state.set(name, 'visiting');
      for (const ref of this.refsOf(this.schema(name).node)) visit(ref, [...path, name]);
      state.set(name, 'done');
      order.push(this.schema(name));
    };
    for (const schema of this.model.schemas) visit(schema.name, []);
    return { order, cyclic };
  }
}

function sameValues(a: DiscriminatorValue[], b: DiscriminatorValue[]): boolean {
  return a.length === b.length && a.every((v) => b.includes(v));
}

export function isObjectNode(node: SchemaNode): node is ObjectNode {
  return node.kind === 'object';
}
