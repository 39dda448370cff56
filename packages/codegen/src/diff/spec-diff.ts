import { readFile } from 'node:fs/promises';
import { readOpenApi, stripAnnotations } from '../model/read-openapi.js';
import type { SchemaNode, SpecModel } from '../model/schema-model.js';
import { readManifest, syncedDocumentPath } from '../sync/manifest.js';
import { type SchemaFlow, schemaFlows } from './schema-flow.js';

/** What kind of change a `SpecChange` is. */
export type SpecChangeKind =
  | 'schema-added'
  | 'schema-removed'
  | 'field-added'
  | 'field-removed'
  | 'field-now-required'
  | 'field-now-optional'
  | 'field-now-allowed'
  | 'field-now-disallowed'
  | 'enum-values-added'
  | 'enum-values-removed'
  | 'union-members-added'
  | 'union-members-removed'
  | 'type-changed'
  | 'constraint-loosened'
  | 'constraint-tightened'
  | 'schema-changed';

/** One change between two spec versions. */
export interface SpecChange {
  /** The named schema the change is in. */
  schema: string;
  /** Where in it: `Schema`, `Schema.field`, `Schema.field[]` (array items), `Schema.field{}` (map values). */
  path: string;
  /** What kind of change. */
  kind: SpecChangeKind;
  /** What changed, naming it: the enum values, the field, the union member, the constraint. */
  change: string;
  /** How the schema flows: written by clients (`request`), read by them (`response`), or `both`. */
  direction: SchemaFlow;
  /** Whether it breaks code on the root exports (readers or writers, by the schema's flow). */
  breaking: boolean;
}

/** A spec version as the diff needs it: the model, and the raw document whose paths give each schema's flow. */
export interface DiffInput {
  /** The version's model. */
  model: SpecModel;
  /** The raw document (its paths give each schema's flow). */
  document: unknown;
}

/**
 * How a change affects the set of valid values: `widens` (an enum value, a union member, a looser bound)
 * breaks readers, whose exhaustive switches and assumptions miss the new values, and is additive for writers;
 * `narrows` is the reverse (writers may now send something invalid); `breaks` breaks both (a removed field or
 * schema, a changed type); `additive` breaks neither (a new optional field, a new schema).
 */
type Effect = 'widens' | 'narrows' | 'breaks' | 'additive';

function isBreaking(effect: Effect, direction: SchemaFlow): boolean {
  if (effect === 'breaks') return true;
  if (effect === 'additive') return false;
  if (direction === 'both') return true;
  return effect === 'widens' ? direction === 'response' : direction === 'request';
}

/** Every change between two spec versions, schema by schema, each classified by the schema's flow. */
export function diffSpecs(from: DiffInput, to: DiffInput): SpecChange[] {
  const flowsBefore = schemaFlows(from.document, from.model);
  const flowsAfter = schemaFlows(to.document, to.model);
  const directionOf = (name: string): SchemaFlow => {
    const before = flowsBefore.get(name);
    const after = flowsAfter.get(name);
    return !before || !after || before === after ? (after ?? before ?? 'both') : 'both';
  };
  const changes: SpecChange[] = [];
  const before = new Map(from.model.schemas.map((s) => [s.name, s]));
  for (const { name } of from.model.schemas)
    if (!to.model.schemas.some((s) => s.name === name))
      changes.push(change(name, name, 'schema-removed', 'schema removed', 'breaks', directionOf(name)));
  for (const schema of to.model.schemas) {
    const old = before.get(schema.name);
    const direction = directionOf(schema.name);
    if (!old) {
      const since = schema.node.annotations.since;
      changes.push(
        change(
          schema.name,
          schema.name,
          'schema-added',
          `schema added${since ? ` (since ${since})` : ''}`,
          'additive',
          direction,
        ),
      );
    } else diffNode({ schema: schema.name, direction, out: changes }, schema.name, old.node, schema.node);
  }
  return changes;
}

function change(
  schema: string,
  path: string,
  kind: SpecChangeKind,
  description: string,
  effect: Effect,
  direction: SchemaFlow,
): SpecChange {
  return { schema, path, kind, change: description, direction, breaking: isBreaking(effect, direction) };
}

interface DiffContext {
  schema: string;
  direction: SchemaFlow;
  out: SpecChange[];
}

function diffNode(context: DiffContext, path: string, a: SchemaNode, b: SchemaNode): void {
  const reported = context.out.length;
  const push = (kind: SpecChangeKind, description: string, effect: Effect) =>
    context.out.push(change(context.schema, path, kind, description, effect, context.direction));

  // A type that became one member of a union (most often nullable) gained the other members, and the reverse.
  if (b.kind === 'union' && a.kind !== 'union' && b.members.some((m) => key(m) === key(a))) {
    const added = b.members.filter((m) => key(m) !== key(a)).map(describeMember);
    push('union-members-added', describeMembers('added', added), 'widens');
    return;
  }
  if (a.kind === 'union' && b.kind !== 'union' && a.members.some((m) => key(m) === key(b))) {
    const removed = a.members.filter((m) => key(m) !== key(b)).map(describeMember);
    push('union-members-removed', describeMembers('removed', removed), 'narrows');
    return;
  }
  if (a.kind !== b.kind) {
    push('type-changed', `type changed from ${describeNode(a)} to ${describeNode(b)}`, 'breaks');
    return;
  }
  if (a.kind === 'string' && b.kind === 'string') diffEnum(push, a.enum, b.enum);
  if (a.kind === 'number' && b.kind === 'number') diffEnum(push, a.enum, b.enum);
  if (a.kind === 'boolean' && b.kind === 'boolean') diffEnum(push, a.enum, b.enum);
  if (a.kind === 'string' && b.kind === 'string') {
    diffBound(push, 'minLength', a.minLength, b.minLength, 'min');
    diffBound(push, 'maxLength', a.maxLength, b.maxLength, 'max');
    if (a.pattern !== b.pattern)
      push('type-changed', `pattern changed from ${a.pattern ?? 'none'} to ${b.pattern ?? 'none'}`, 'breaks');
  }
  if (a.kind === 'number' && b.kind === 'number') {
    if (a.integer !== b.integer)
      push(
        a.integer ? 'constraint-loosened' : 'constraint-tightened',
        `${a.integer ? 'integer' : 'number'} became ${b.integer ? 'integer' : 'number'}`,
        a.integer ? 'widens' : 'narrows',
      );
    diffBound(push, 'minimum', a.minimum, b.minimum, 'min');
    diffBound(push, 'exclusiveMinimum', a.exclusiveMinimum, b.exclusiveMinimum, 'min');
    diffBound(push, 'maximum', a.maximum, b.maximum, 'max');
    diffBound(push, 'exclusiveMaximum', a.exclusiveMaximum, b.exclusiveMaximum, 'max');
  }
  if (a.kind === 'ref' && b.kind === 'ref' && a.name !== b.name)
    push('type-changed', `type changed from ${a.name} to ${b.name}`, 'breaks');
  if (a.kind === 'array' && b.kind === 'array') {
    diffBound(push, 'minItems', a.minItems, b.minItems, 'min');
    diffBound(push, 'maxItems', a.maxItems, b.maxItems, 'max');
    diffNode(context, `${path}[]`, a.items, b.items);
  }
  if (a.kind === 'object' && b.kind === 'object') {
    diffFields(context, path, a, b);
    diffBound(push, 'minProperties', a.minProperties, b.minProperties, 'min');
    diffBound(push, 'maxProperties', a.maxProperties, b.maxProperties, 'max');
    if (typeof a.additional === 'object' && typeof b.additional === 'object')
      diffNode(context, `${path}{}`, a.additional, b.additional);
    else if (a.additional !== b.additional) {
      const describe = (x: typeof a.additional) =>
        x === 'any' ? 'any extra field' : x === 'none' ? 'no extra fields' : `extra fields of ${describeNode(x)}`;
      const widens = a.additional === 'none' || b.additional === 'any';
      push(
        widens ? 'constraint-loosened' : 'constraint-tightened',
        `now allows ${describe(b.additional)} (was ${describe(a.additional)})`,
        widens ? 'widens' : 'narrows',
      );
    }
  }
  if (a.kind === 'union' && b.kind === 'union') {
    const oldKeys = new Set(a.members.map(key));
    const newKeys = new Set(b.members.map(key));
    const removed = a.members.filter((m) => !newKeys.has(key(m))).map(describeMember);
    const added = b.members.filter((m) => !oldKeys.has(key(m))).map(describeMember);
    if (removed.length > 0) push('union-members-removed', describeMembers('removed', removed), 'narrows');
    if (added.length > 0) push('union-members-added', describeMembers('added', added), 'widens');
  }
  // Anything the rules above do not name still shows up, conservatively as breaking.
  if (context.out.length === reported && key(a) !== key(b))
    push('schema-changed', `schema changed: ${describeNode(a)} -> ${describeNode(b)}`, 'breaks');
}

const key = (n: SchemaNode) => JSON.stringify(stripAnnotations(n));

function diffFields(
  context: DiffContext,
  path: string,
  a: Extract<SchemaNode, { kind: 'object' }>,
  b: Extract<SchemaNode, { kind: 'object' }>,
): void {
  const newFields = new Map(b.properties.map((p) => [p.name, p]));
  const oldNames = new Set(a.properties.map((p) => p.name));
  for (const p of a.properties) {
    const fieldPath = `${path}.${p.name}`;
    const push = (kind: SpecChangeKind, description: string, effect: Effect) =>
      context.out.push(change(context.schema, fieldPath, kind, description, effect, context.direction));
    const q = newFields.get(p.name);
    if (!q) {
      push('field-removed', `field ${p.name} removed`, 'breaks');
      continue;
    }
    if (!p.required && q.required) push('field-now-required', `field ${p.name} is now required`, 'narrows');
    if (p.required && !q.required) push('field-now-optional', `field ${p.name} is now optional`, 'widens');
    if (p.disallowed !== q.disallowed) {
      push(
        q.disallowed ? 'field-now-disallowed' : 'field-now-allowed',
        `field ${p.name} is now ${q.disallowed ? 'disallowed' : 'allowed'}`,
        q.disallowed ? 'narrows' : 'widens',
      );
      continue;
    }
    diffNode(context, fieldPath, p.node, q.node);
  }
  for (const q of b.properties) {
    if (oldNames.has(q.name)) continue;
    context.out.push(
      change(
        context.schema,
        `${path}.${q.name}`,
        'field-added',
        `field ${q.name} added (${q.required ? 'required' : 'optional'}, ${describeNode(q.node)})`,
        q.required ? 'narrows' : 'additive',
        context.direction,
      ),
    );
  }
}

type Push = (kind: SpecChangeKind, description: string, effect: Effect) => void;

function diffEnum<T extends string | number | boolean>(push: Push, a: T[] | undefined, b: T[] | undefined): void {
  const show = (values: readonly T[]) => values.map((v) => JSON.stringify(v)).join(', ');
  if (a && b) {
    const removed = a.filter((v) => !b.includes(v));
    const added = b.filter((v) => !a.includes(v));
    if (removed.length > 0)
      push('enum-values-removed', `enum ${plural('value', removed)} ${show(removed)} removed`, 'narrows');
    if (added.length > 0) push('enum-values-added', `enum ${plural('value', added)} ${show(added)} added`, 'widens');
  } else if (b) push('constraint-tightened', `now restricted to ${show(b)}`, 'narrows');
  else if (a) push('constraint-loosened', `no longer restricted to ${show(a)}`, 'widens');
}

/** A bound that got looser (a lower minimum, a higher maximum, or none) widens; tighter narrows. */
function diffBound(push: Push, name: string, a: number | undefined, b: number | undefined, side: 'min' | 'max'): void {
  if (a === b) return;
  const looser = b === undefined || (a !== undefined && (side === 'min' ? b < a : b > a));
  push(
    looser ? 'constraint-loosened' : 'constraint-tightened',
    `${name} ${a ?? 'none'} -> ${b ?? 'none'}`,
    looser ? 'widens' : 'narrows',
  );
}

/** `now also accepts null` for a field that became nullable, `union member X added` otherwise. */
function describeMembers(how: 'added' | 'removed', members: string[]): string {
  if (members.length === 1 && members[0] === 'null')
    return how === 'added' ? 'now also accepts null' : 'no longer accepts null';
  return `union ${plural('member', members)} ${members.join(', ')} ${how}`;
}

const plural = (word: string, items: readonly unknown[]) => (items.length === 1 ? word : `${word}s`);

function describeNode(node: SchemaNode): string {
  switch (node.kind) {
    case 'ref':
      return node.name;
    case 'string':
    case 'number':
    case 'boolean':
      return node.enum
        ? node.enum.map((v) => JSON.stringify(v)).join(' | ')
        : node.kind === 'number' && node.integer
          ? 'integer'
          : node.kind;
    case 'array':
      return `array of ${describeNode(node.items)}`;
    case 'union':
      return node.members.map(describeNode).join(' | ');
    default:
      return node.kind;
  }
}

/** A union member by its name, or for an inline object by its `type` discriminator value. */
function describeMember(node: SchemaNode): string {
  if (node.kind === 'object') {
    const type = node.properties.find((p) => p.name === 'type')?.node;
    if (type?.kind === 'string' && type.enum?.length === 1) return `type ${JSON.stringify(type.enum[0])}`;
    return `object {${node.properties.map((p) => p.name).join(', ')}}`;
  }
  return describeNode(node);
}

/** The packages generated from the spec documents; the changeset of a new spec version names them. */
export const GENERATED_PACKAGES = ['@openresponses/types', '@openresponses/zod'] as const;

/**
 * The changeset for a new spec version. Adding a version is a minor release (see the versioning policy in the
 * README): every older version stays at its subpath, and the root exports move to the new one.
 */
export function changesetFor(
  from: string,
  to: string,
  changes: SpecChange[],
  { movesLatest = true }: { movesLatest?: boolean } = {},
): string {
  const breaking = changes.filter((c) => c.breaking);
  const line = (c: SpecChange) => `- \`${c.path}\` (${c.direction}): ${c.change}`;
  const subpaths = (version: string) => `\`@openresponses/types/${version}\` and \`@openresponses/zod/${version}\``;
  return [
    '---',
    ...GENERATED_PACKAGES.map((name) => `"${name}": minor`),
    '---',
    '',
    movesLatest
      ? `Add Open Responses spec ${to}: ${subpaths(to)}, and the root exports now follow ${to}. ${from} stays available at ${subpaths(from)}.`
      : `Add Open Responses spec ${to} at ${subpaths(to)}; the root exports do not change.`,
    '',
    `Changes since ${from}: ${changes.length}, ${breaking.length} breaking${movesLatest ? ` for code on the root export (pin the \`/${from}\` subpath to keep the old shapes)` : ''}.`,
    ...(breaking.length > 0 ? ['', 'Breaking:', '', ...breaking.map(line)] : []),
    ...(breaking.length < changes.length ? ['', 'Additive:', '', ...changes.filter((c) => !c.breaking).map(line)] : []),
    '',
  ].join('\n');
}

/** The changes as the terminal table `spec:diff` prints. */
export function formatSpecChanges(from: string, to: string, changes: SpecChange[]): string {
  const width = Math.max(0, ...changes.map((c) => c.path.length));
  return [
    `${from} -> ${to}: ${changes.length} changes, ${changes.filter((c) => c.breaking).length} breaking`,
    ...changes.map(
      (c) => `${c.breaking ? 'BREAKING' : '        '}  ${c.direction.padEnd(8)}  ${c.path.padEnd(width)}  ${c.change}`,
    ),
  ].join('\n');
}

/** A synced manifest version as the diff's input (run `spec:sync` first). */
export async function readSyncedVersion(repoRoot: string, version: string): Promise<DiffInput> {
  const manifest = await readManifest(repoRoot);
  const entry = manifest.versions.find((v) => v.version === version);
  if (!entry) throw new Error(`spec ${version} is not in openapi/manifest.json`);
  const document: unknown = JSON.parse(await readFile(syncedDocumentPath(repoRoot, version), 'utf8'));
  return { model: readOpenApi(document, { version, sha256: entry.sha256 }), document };
}
