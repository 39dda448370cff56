import { stripAnnotations } from '../model/read-openapi.js';
import type { SchemaNode, SpecModel } from '../model/schema-model.js';

export interface SpecChange {
  /** `Schema` or `Schema.field`. */
  path: string;
  kind:
    | 'schema-added'
    | 'schema-removed'
    | 'field-added'
    | 'field-removed'
    | 'field-changed'
    | 'field-now-required'
    | 'field-now-optional'
    | 'schema-changed';
  breaking: boolean;
  detail: string;
}

/**
 * What changed between two spec versions, schema by schema and field by field. Breaking means a
 * payload valid under `from` may be invalid under `to` (or a type users rely on lost a member).
 */
export function diffSpecs(from: SpecModel, to: SpecModel): SpecChange[] {
  const changes: SpecChange[] = [];
  const before = new Map(from.schemas.map((s) => [s.name, s]));
  const after = new Map(to.schemas.map((s) => [s.name, s]));
  for (const [name] of before) {
    if (!after.has(name))
      changes.push({ path: name, kind: 'schema-removed', breaking: true, detail: `${name} was removed` });
  }
  for (const [name, schema] of after) {
    const old = before.get(name);
    if (!old) {
      changes.push({
        path: name,
        kind: 'schema-added',
        breaking: false,
        detail: `${name} was added${schema.node.annotations.since ? ` (since ${schema.node.annotations.since})` : ''}`,
      });
      continue;
    }
    changes.push(...diffNode(name, old.node, schema.node));
  }
  return changes;
}

function diffNode(path: string, a: SchemaNode, b: SchemaNode): SpecChange[] {
  if (a.kind === 'object' && b.kind === 'object') {
    const out: SpecChange[] = [];
    const oldFields = new Map(a.properties.map((p) => [p.name, p]));
    const newFields = new Map(b.properties.map((p) => [p.name, p]));
    for (const [field, p] of oldFields) {
      if (!newFields.has(field))
        out.push({
          path: `${path}.${field}`,
          kind: 'field-removed',
          breaking: true,
          detail: `field ${field} was removed`,
        });
      else {
        const q = newFields.get(field)!;
        if (!p.required && q.required)
          out.push({
            path: `${path}.${field}`,
            kind: 'field-now-required',
            breaking: true,
            detail: `field ${field} became required`,
          });
        if (p.required && !q.required)
          out.push({
            path: `${path}.${field}`,
            kind: 'field-now-optional',
            breaking: true,
            detail: `field ${field} became optional (readers can no longer rely on it)`,
          });
        if (JSON.stringify(stripAnnotations(p.node)) !== JSON.stringify(stripAnnotations(q.node))) {
          out.push({
            path: `${path}.${field}`,
            kind: 'field-changed',
            breaking: true,
            detail: `field ${field} changed its schema`,
          });
        }
      }
    }
    for (const [field, q] of newFields) {
      if (!oldFields.has(field)) {
        out.push({
          path: `${path}.${field}`,
          kind: 'field-added',
          breaking: q.required,
          detail: `field ${field} was added${q.required ? ' as required' : ''}`,
        });
      }
    }
    return out;
  }
  if (a.kind === 'union' && b.kind === 'union') {
    const key = (n: SchemaNode) => JSON.stringify(stripAnnotations(n));
    const oldMembers = new Map(a.members.map((m) => [key(m), m]));
    const newMembers = new Map(b.members.map((m) => [key(m), m]));
    const label = (n: SchemaNode) => (n.kind === 'ref' ? n.name : n.kind);
    const out: SpecChange[] = [];
    for (const [k, m] of oldMembers)
      if (!newMembers.has(k))
        out.push({ path, kind: 'schema-changed', breaking: true, detail: `member ${label(m)} was removed` });
    for (const [k, m] of newMembers) {
      if (!oldMembers.has(k))
        out.push({
          path,
          kind: 'schema-changed',
          breaking: false,
          detail: `member ${label(m)} was added (exhaustive switches over ${path} must handle it)`,
        });
    }
    return out;
  }
  if (JSON.stringify(stripAnnotations(a)) !== JSON.stringify(stripAnnotations(b))) {
    return [{ path, kind: 'schema-changed', breaking: true, detail: `${path} changed (${a.kind} -> ${b.kind})` }];
  }
  return [];
}

/** A changeset for a new spec version: minor when nothing breaks, major otherwise. */
export function changesetFor(from: string, to: string, changes: SpecChange[]): string {
  const breaking = changes.filter((c) => c.breaking);
  const bump = breaking.length > 0 ? 'major' : 'minor';
  const lines = changes.map((c) => `- ${c.breaking ? '**breaking** ' : ''}\`${c.path}\`: ${c.detail}`);
  return [
    '---',
    `"@openresponses/types": ${bump}`,
    `"@openresponses/zod": ${bump}`,
    '---',
    '',
    `Add Open Responses spec ${to} (changes since ${from}: ${changes.length}, ${breaking.length} breaking).`,
    '',
    ...lines,
    '',
  ].join('\n');
}
