/**
 * Seeded sample corpus for the differential test: valid-looking payloads generated from the
 * intermediate model, and mutants of each that break one rule (missing required field, wrong type,
 * bad enum, wrong discriminator, violated length or range, disallowed field present). Whether a
 * sample is valid is never decided here: Ajv is the oracle.
 */
import type { ModelAnalysis, SchemaNode } from '@openresponses/codegen';

export interface Sample {
  schema: string;
  label: string;
  value: unknown;
  /** For a mutant: where the one mutation is (the field it removed, added or changed), from the sample's root. */
  mutatedPath?: Array<string | number>;
}

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof createRandom>;

type Location = { path: Array<string | number>; node: SchemaNode };

const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
/** An astral character: one code point, two UTF-16 units (JSON Schema counts code points). */
const ASTRAL = '😀';

class SampleBuilder {
  locations: Location[] = [];
  constructor(
    private readonly analysis: ModelAnalysis,
    private readonly random: Random,
    private readonly forward: boolean,
  ) {}

  build(node: SchemaNode, path: Array<string | number>, depth: number, memberHint?: number): unknown {
    const resolved = this.analysis.resolve(node);
    const value = this.value(resolved, node, path, depth, memberHint);
    if (value !== undefined) this.locations.push({ path, node: resolved });
    return value;
  }

  private value(
    node: SchemaNode,
    original: SchemaNode,
    path: Array<string | number>,
    depth: number,
    memberHint?: number,
  ): unknown {
    const r = this.random;
    switch (node.kind) {
      case 'ref':
        return undefined;
      case 'string': {
        if (node.enum) return r.pick(node.enum);
        const min = node.minLength ?? 0;
        const max = Math.min(node.maxLength ?? 24, min + 24);
        let length = r.int(min, max);
        // Strings exactly at the bound, sometimes with astral characters, probe code-point counting.
        if (node.maxLength !== undefined && node.maxLength <= 1000 && r.chance(0.3)) length = node.maxLength;
        const astral = !node.pattern && r.chance(0.3);
        let text = '';
        for (let i = 0; i < length; i++) text += astral && r.chance(0.3) ? ASTRAL : WORD[r.int(0, WORD.length - 1)];
        return text;
      }
      case 'number': {
        if (node.enum) return r.pick(node.enum);
        const min = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : -10);
        const max = node.maximum ?? (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - 1 : 10_000);
        if (node.integer) return r.int(Math.ceil(min), Math.floor(max));
        return Math.round((min + r.next() * (max - min)) * 1000) / 1000;
      }
      case 'boolean':
        return node.enum ? r.pick(node.enum) : r.chance(0.5);
      case 'null':
        return null;
      case 'any':
        return r.pick([{ nested: { anything: [1, 'two', null] } }, 'text', 3, true, null, [1, 2]]);
      case 'never':
        return undefined;
      case 'array': {
        const min = node.minItems ?? 0;
        const max = Math.min(node.maxItems ?? 3, min + 3);
        const length = depth > 4 ? min : r.int(min, max);
        return Array.from({ length }, (_, i) => this.build(node.items, [...path, i], depth + 1));
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        if (typeof node.additional === 'object' || (node.properties.length === 0 && node.additional === 'any')) {
          const valueNode: SchemaNode =
            typeof node.additional === 'object' ? node.additional : { kind: 'any', annotations: {} };
          const count =
            node.maxProperties !== undefined && r.chance(0.3) ? node.maxProperties : r.int(node.minProperties ?? 0, 3);
          for (let i = 0; i < count; i++) out[`key_${i}`] = this.build(valueNode, [...path, `key_${i}`], depth + 1);
          return out;
        }
        for (const property of node.properties) {
          if (property.disallowed) continue;
          const include = property.required || (depth < 4 && r.chance(0.5));
          if (!include) continue;
          const value = this.build(property.node, [...path, property.name], depth + 1);
          if (value !== undefined) out[property.name] = value;
        }
        // Unknown fields are legal and must survive; vendor fields look like this.
        if (r.chance(0.2)) out['acme:trace'] = { id: r.int(1, 99) };
        return out;
      }
      case 'union': {
        const members = node.members.filter((m) => m.kind !== 'never');
        if (this.forward && node.discriminator === 'type' && r.chance(0.1)) {
          return { type: 'acme:unknown_thing', id: `x_${r.int(1, 999)}`, payload: { kept: true } };
        }
        const index = memberHint !== undefined ? memberHint % members.length : r.int(0, members.length - 1);
        void original;
        return this.build(members[index]!, path, depth, undefined);
      }
    }
  }
}

export interface CorpusOptions {
  seed: number;
  /** Valid samples per schema, at least one per member for unions. */
  perSchema: number;
  mutantsPerSample: number;
  forward: boolean;
}

export function buildCorpus(analysis: ModelAnalysis, options: CorpusOptions): Sample[] {
  const random = createRandom(options.seed);
  const samples: Sample[] = [];
  for (const schema of analysis.model.schemas) {
    const root = analysis.resolve(schema.node);
    const count = Math.max(options.perSchema, root.kind === 'union' ? root.members.length * 2 : 0);
    for (let i = 0; i < count; i++) {
      const builder = new SampleBuilder(analysis, random, options.forward);
      const value = builder.build(schema.node, [], 0, i);
      samples.push({ schema: schema.name, label: `generated #${i}`, value });
      for (let m = 0; m < options.mutantsPerSample; m++) {
        const mutant = mutate(value, builder.locations, analysis, random);
        if (mutant)
          samples.push({
            schema: schema.name,
            label: `mutant of #${i}: ${mutant.label}`,
            value: mutant.value,
            mutatedPath: mutant.path,
          });
      }
    }
  }
  return samples;
}

function wrongTypeValue(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return 'true';
  if (value === null) return 0;
  if (Array.isArray(value)) return { 0: value[0] ?? null };
  return [value];
}

function mutate(
  value: unknown,
  locations: Location[],
  analysis: ModelAnalysis,
  random: Random,
): { label: string; value: unknown; path: Array<string | number> } | undefined {
  if (locations.length === 0) return undefined;
  const picked = random.pick(locations);
  // Paths run from a holder, so that the root itself can be replaced too.
  const location = { ...picked, path: ['root', ...picked.path] };
  const copy = { root: structuredClone(value) };
  const current = get(copy, location.path);
  const node = location.node;
  // Mutations of one field of the object at the location move the mutated path down to that field.
  let field: string | undefined;
  const candidates: Array<() => string | undefined> = [
    () => {
      set(copy, location.path, wrongTypeValue(current));
      return 'wrong type';
    },
  ];
  if (node.kind === 'object' && current && typeof current === 'object' && !Array.isArray(current)) {
    const present = node.properties.filter((p) => p.required && p.name in current);
    if (present.length > 0) {
      candidates.push(() => {
        const p = random.pick(present);
        delete (current as Record<string, unknown>)[p.name];
        field = p.name;
        return `missing required ${p.name}`;
      });
    }
    const disallowed = node.properties.filter((p) => p.disallowed);
    if (disallowed.length > 0) {
      candidates.push(() => {
        const p = random.pick(disallowed);
        (current as Record<string, unknown>)[p.name] = random.pick([true, 'x', '', null, {}]);
        field = p.name;
        return `disallowed ${p.name} present`;
      });
    }
    if (typeof node.additional === 'object' || node.maxProperties !== undefined) {
      candidates.push(() => {
        const limit = node.maxProperties ?? 3;
        for (let i = 0; i <= limit; i++) (current as Record<string, unknown>)[`extra_${i}`] = 'v';
        return 'too many properties';
      });
    }
    const discriminator = 'type' in current ? (current as Record<string, unknown>).type : undefined;
    if (typeof discriminator === 'string') {
      candidates.push(() => {
        (current as Record<string, unknown>).type = random.pick([
          'acme:unknown',
          'message',
          'response.completed',
          'function_call',
          'output_text',
          '',
        ]);
        field = 'type';
        return 'changed discriminator';
      });
    }
    candidates.push(() => {
      (current as Record<string, unknown>).unknown_field = { nested: [1, 2, 3] };
      field = 'unknown_field';
      return 'unknown field added (still valid)';
    });
  }
  if (node.kind === 'string' && typeof current === 'string') {
    if (node.enum) candidates.push(() => (set(copy, location.path, `${current}_not_in_enum`), 'bad enum'));
    if (node.maxLength !== undefined && node.maxLength <= 100_000) {
      candidates.push(() => (set(copy, location.path, 'a'.repeat(node.maxLength! + 1)), 'too long'));
      candidates.push(
        () => (
          set(copy, location.path, ASTRAL.repeat(node.maxLength!)), 'astral characters at the limit (valid length)'
        ),
      );
    }
    if (node.minLength !== undefined && node.minLength > 0)
      candidates.push(() => (set(copy, location.path, ''), 'too short'));
    if (node.pattern) candidates.push(() => (set(copy, location.path, `${current} !`), 'pattern violated'));
  }
  if (node.kind === 'number' && typeof current === 'number') {
    if (node.integer) candidates.push(() => (set(copy, location.path, current + 0.5), 'not an integer'));
    if (node.integer) candidates.push(() => (set(copy, location.path, 1e20), 'large integer (valid)'));
    if (node.minimum !== undefined)
      candidates.push(() => (set(copy, location.path, node.minimum! - 1), 'below minimum'));
    if (node.maximum !== undefined)
      candidates.push(() => (set(copy, location.path, node.maximum! + 1), 'above maximum'));
  }
  if (node.kind === 'array' && Array.isArray(current)) {
    if (node.minItems) candidates.push(() => (set(copy, location.path, []), 'too few items'));
    if (node.maxItems !== undefined && current.length > 0) {
      candidates.push(
        () => (
          set(
            copy,
            location.path,
            Array.from({ length: node.maxItems! + 1 }, () => current[0]),
          ),
          'too many items'
        ),
      );
    }
  }
  void analysis;
  const label = random.pick(candidates)();
  if (!label) return undefined;
  const path = field === undefined ? picked.path : [...picked.path, field];
  return { label: `${label} at ${formatPath(picked.path)}`, value: copy.root, path };
}

function formatPath(path: Array<string | number>): string {
  return path.length === 0 ? '(root)' : path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
}

function get(root: unknown, path: Array<string | number>): unknown {
  let current = root as Record<string | number, unknown>;
  for (const key of path) current = current?.[key] as Record<string | number, unknown>;
  return current;
}

function set(root: unknown, path: Array<string | number>, value: unknown): void {
  const parent = get(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
}
