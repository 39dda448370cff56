import {
  type Annotations,
  type NamedSchema,
  type ObjectNode,
  type ObjectProperty,
  type SchemaNode,
  type SpecModel,
  UnsupportedSchemaError,
} from './schema-model.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type RawSchema = { [key: string]: Json };

/** Keywords that only document a schema. */
const ANNOTATION_KEYWORDS = new Set([
  'title',
  'description',
  'default',
  'example',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  'x-openresponses-added-in',
  'x-openresponses-disallowed',
  'x-enumDescriptions',
  'x-unionTitle',
  'x-unionDisplay',
]);

/** Keywords that constrain values and that the model represents exactly. */
const STRUCTURAL_KEYWORDS = new Set([
  '$ref',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'discriminator',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
]);

const TYPE_KEYWORDS: Record<string, Set<string>> = {
  string: new Set(['minLength', 'maxLength', 'pattern', 'enum', 'const']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum', 'const']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum', 'const']),
  boolean: new Set(['enum', 'const']),
  null: new Set(['enum', 'const']),
  array: new Set(['items', 'minItems', 'maxItems']),
  object: new Set(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties']),
};

/** The name given to the synthesized union of every streaming event. */
export const STREAMING_EVENT_UNION = 'StreamingEvent';
const COMPONENT_REF = '#/components/schemas/';

export interface ReadOptions {
  version: string;
  sha256: string;
}

/** Reads an OpenAPI 3.1 document into the intermediate model. */
export function readOpenApi(document: unknown, options: ReadOptions): SpecModel {
  const doc = document as { components?: { schemas?: Record<string, RawSchema> }; paths?: Record<string, Json> };
  const components = doc.components?.schemas;
  if (!components) throw new UnsupportedSchemaError('#/components/schemas', 'the document has no component schemas');

  const reader = new SchemaReader(components);
  const schemas: NamedSchema[] = [];
  for (const [name, raw] of Object.entries(components)) {
    const source = `${COMPONENT_REF}${name}`;
    schemas.push({ name, node: reader.read(raw, source), source, open: false });
  }

  const eventsPath = '#/paths/~1responses/post/responses/200/content/text~1event-stream/schema';
  const eventUnion = resolvePointer(doc, eventsPath) as RawSchema | undefined;
  if (!eventUnion) throw new UnsupportedSchemaError(eventsPath, 'no text/event-stream schema for POST /responses');
  schemas.push({
    name: STREAMING_EVENT_UNION,
    node: reader.read(
      {
        ...eventUnion,
        description:
          'Any server-sent event of a streamed response (the `text/event-stream` body of `POST /responses`).',
      },
      eventsPath,
    ),
    source: eventsPath,
    open: false,
  });

  const hoisted = hoistInlineUnions(schemas);
  for (const schema of hoisted) schema.open = isOpenUnion(schema.node);
  return {
    version: options.version,
    sha256: options.sha256,
    schemas: hoisted,
    streamingEventUnion: STREAMING_EVENT_UNION,
  };
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let current: unknown = root;
  for (const token of pointer.replace(/^#\//, '').split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

class SchemaReader {
  constructor(private readonly components: Record<string, RawSchema>) {}

  read(raw: Json, path: string): SchemaNode {
    if (
      raw === true ||
      (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.keys(raw).length === 0)
    ) {
      return { kind: 'any', annotations: {} };
    }
    if (raw === false) return { kind: 'never', annotations: {} };
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new UnsupportedSchemaError(path, `expected a schema object, found ${JSON.stringify(raw)}`);
    }
    for (const key of Object.keys(raw)) {
      if (!STRUCTURAL_KEYWORDS.has(key) && !ANNOTATION_KEYWORDS.has(key)) {
        throw new UnsupportedSchemaError(path, `keyword "${key}" is not supported`);
      }
    }
    const annotations = readAnnotations(raw);
    if (raw['x-openresponses-disallowed'] === true) return { kind: 'never', annotations };

    const combinators = (['$ref', 'allOf', 'anyOf', 'oneOf'] as const).filter((k) => k in raw);
    if (combinators.length > 1)
      throw new UnsupportedSchemaError(path, `combining ${combinators.join(' and ')} in one schema`);
    const combinator = combinators[0];
    if (combinator) {
      const extra = Object.keys(raw).filter(
        (k) => STRUCTURAL_KEYWORDS.has(k) && k !== combinator && !(k === 'discriminator' && combinator === 'oneOf'),
      );
      // `type: object` beside a union of objects adds nothing; any other sibling constraint would need an intersection.
      const harmless = extra.filter((k) => !(k === 'type' && raw.type === 'object' && combinator !== '$ref'));
      if (harmless.length > 0)
        throw new UnsupportedSchemaError(path, `"${harmless.join('", "')}" beside ${combinator}`);
    }

    if (combinator === '$ref') return this.readRef(raw.$ref, path, annotations);
    if (combinator === 'allOf') return this.readAllOf(raw.allOf, path, annotations);
    if (combinator === 'anyOf' || combinator === 'oneOf') return this.readUnion(raw, combinator, path, annotations);
    return this.readTyped(raw, path, annotations);
  }

  private readRef(ref: Json, path: string, annotations: Annotations): SchemaNode {
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) {
      throw new UnsupportedSchemaError(
        path,
        `only local component references are supported, found ${JSON.stringify(ref)}`,
      );
    }
    const name = ref.slice(COMPONENT_REF.length);
    if (!(name in this.components)) throw new UnsupportedSchemaError(path, `reference to missing schema "${name}"`);
    return { kind: 'ref', name, annotations };
  }

  private readAllOf(members: Json, path: string, annotations: Annotations): SchemaNode {
    if (!Array.isArray(members) || members.length === 0)
      throw new UnsupportedSchemaError(path, 'allOf must be a non-empty array');
    const nodes = members.map((m, i) => this.read(m, `${path}/allOf/${i}`));
    // Description-only members (`{ description }`) annotate the use site; they constrain nothing.
    const documentation = nodes.filter((n) => n.kind === 'any');
    const constraining = nodes.filter((n) => n.kind !== 'any');
    const useSite: Annotations = Object.assign({}, ...documentation.map((n) => n.annotations), annotations);
    if (constraining.length === 0) return { kind: 'any', annotations: useSite };
    if (constraining.length === 1) {
      const only = constraining[0]!;
      return { ...only, annotations: { ...only.annotations, ...useSite } } as SchemaNode;
    }
    const objects = constraining.map((n, i) => this.objectOf(n, `${path}/allOf/${i}`));
    return { ...objects.reduce((a, b) => mergeObjects(a, b, path)), annotations: useSite };
  }

  private objectOf(node: SchemaNode, path: string): ObjectNode {
    if (node.kind === 'object') return node;
    if (node.kind === 'ref') {
      const target = this.read(this.components[node.name]!, `${COMPONENT_REF}${node.name}`);
      return this.objectOf(target, path);
    }
    throw new UnsupportedSchemaError(path, `allOf can only merge object schemas, found ${node.kind}`);
  }

  private readUnion(raw: RawSchema, mode: 'anyOf' | 'oneOf', path: string, annotations: Annotations): SchemaNode {
    const list = raw[mode];
    if (!Array.isArray(list) || list.length === 0)
      throw new UnsupportedSchemaError(path, `${mode} must be a non-empty array`);
    const members = list.map((m, i) => this.read(m, `${path}/${mode}/${i}`));
    let discriminator: string | undefined;
    if (raw.discriminator !== undefined) {
      const d = raw.discriminator as RawSchema;
      if (typeof d?.propertyName !== 'string')
        throw new UnsupportedSchemaError(path, 'discriminator without propertyName');
      if (d.mapping !== undefined)
        throw new UnsupportedSchemaError(`${path}/discriminator`, 'discriminator mapping is not supported');
      discriminator = d.propertyName;
    }
    // A one-member union is its member, unless it is discriminated: then it is a union open to new members.
    if (members.length === 1 && !discriminator) {
      const only = members[0]!;
      return { ...only, annotations: { ...only.annotations, ...annotations } } as SchemaNode;
    }
    return { kind: 'union', mode, members, ...(discriminator ? { discriminator } : {}), annotations };
  }

  private readTyped(raw: RawSchema, path: string, annotations: Annotations): SchemaNode {
    let types: string[];
    if (raw.type === undefined) {
      types = inferTypes(raw, path);
    } else if (typeof raw.type === 'string') {
      types = [raw.type];
    } else if (Array.isArray(raw.type) && raw.type.every((t) => typeof t === 'string')) {
      types = raw.type as string[];
    } else {
      throw new UnsupportedSchemaError(path, `invalid type ${JSON.stringify(raw.type)}`);
    }
    if (types.length === 0) return { kind: 'any', annotations };
    const nodes = types.map((type) => this.readSingleType(raw, type, path, types.length === 1 ? annotations : {}));
    if (nodes.length === 1) return nodes[0]!;
    return { kind: 'union', mode: 'anyOf', members: nodes, annotations };
  }

  private readSingleType(raw: RawSchema, type: string, path: string, annotations: Annotations): SchemaNode {
    const allowed = TYPE_KEYWORDS[type];
    if (!allowed) throw new UnsupportedSchemaError(path, `type "${type}" is not supported`);
    for (const key of Object.keys(raw)) {
      if (STRUCTURAL_KEYWORDS.has(key) && key !== 'type' && !allowed.has(key)) {
        throw new UnsupportedSchemaError(path, `keyword "${key}" does not apply to type "${type}"`);
      }
    }
    const values = enumValues(raw, path);
    const ofType = (predicate: (v: Json) => boolean) => values?.filter(predicate);
    switch (type) {
      case 'string':
        return {
          kind: 'string',
          annotations,
          ...optional('enum', ofType((v) => typeof v === 'string') as string[] | undefined),
          ...optional('minLength', integerKeyword(raw, 'minLength', path)),
          ...optional('maxLength', integerKeyword(raw, 'maxLength', path)),
          ...optional('pattern', stringKeyword(raw, 'pattern', path)),
        };
      case 'integer':
      case 'number':
        return {
          kind: 'number',
          integer: type === 'integer',
          annotations,
          ...optional('enum', ofType((v) => typeof v === 'number') as number[] | undefined),
          ...optional('minimum', numberKeyword(raw, 'minimum', path)),
          ...optional('maximum', numberKeyword(raw, 'maximum', path)),
          ...optional('exclusiveMinimum', numberKeyword(raw, 'exclusiveMinimum', path)),
          ...optional('exclusiveMaximum', numberKeyword(raw, 'exclusiveMaximum', path)),
        };
      case 'boolean':
        return {
          kind: 'boolean',
          annotations,
          ...optional('enum', ofType((v) => typeof v === 'boolean') as boolean[] | undefined),
        };
      case 'null':
        if (values && !values.includes(null)) return { kind: 'never', annotations };
        return { kind: 'null', annotations };
      case 'array': {
        const items =
          raw.items === undefined
            ? ({ kind: 'any', annotations: {} } as SchemaNode)
            : this.read(raw.items, `${path}/items`);
        return {
          kind: 'array',
          items,
          annotations,
          ...optional('minItems', integerKeyword(raw, 'minItems', path)),
          ...optional('maxItems', integerKeyword(raw, 'maxItems', path)),
        };
      }
      case 'object':
        return this.readObject(raw, path, annotations);
      default:
        throw new UnsupportedSchemaError(path, `type "${type}" is not supported`);
    }
  }

  private readObject(raw: RawSchema, path: string, annotations: Annotations): ObjectNode {
    const propertiesRaw = (raw.properties ?? {}) as Record<string, Json>;
    const required = new Set((raw.required ?? []) as string[]);
    const properties: ObjectProperty[] = Object.entries(propertiesRaw).map(([name, schema]) => {
      const node = this.read(schema, `${path}/properties/${name}`);
      return { name, node, required: required.has(name), disallowed: node.kind === 'never' };
    });
    for (const name of required) {
      if (!(name in propertiesRaw))
        properties.push({ name, node: { kind: 'any', annotations: {} }, required: true, disallowed: false });
    }
    let additional: ObjectNode['additional'] = 'any';
    if (raw.additionalProperties === false) additional = 'none';
    else if (raw.additionalProperties !== undefined && raw.additionalProperties !== true) {
      additional = this.read(raw.additionalProperties, `${path}/additionalProperties`);
      if (additional.kind === 'any') additional = 'any';
    }
    if (typeof additional === 'object' && properties.length > 0) {
      throw new UnsupportedSchemaError(path, 'an object with both properties and an additionalProperties schema');
    }
    return {
      kind: 'object',
      properties,
      additional,
      annotations,
      ...optional('minProperties', integerKeyword(raw, 'minProperties', path)),
      ...optional('maxProperties', integerKeyword(raw, 'maxProperties', path)),
    };
  }
}

function inferTypes(raw: RawSchema, path: string): string[] {
  const values = enumValues(raw, path);
  if (values) {
    const kinds = new Set(values.map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : typeof v)));
    for (const k of kinds)
      if (!['string', 'number', 'boolean', 'null'].includes(k)) throw new UnsupportedSchemaError(path, `enum of ${k}`);
    return [...kinds];
  }
  const constraining = Object.keys(raw).filter((k) => STRUCTURAL_KEYWORDS.has(k));
  // Without `type`, JSON Schema applies keywords only to values of their type, so a bare `properties`
  // would also accept strings and numbers; the model has no such shape, so it is refused.
  if (constraining.length > 0) throw new UnsupportedSchemaError(path, `"${constraining.join('", "')}" without "type"`);
  return [];
}

function enumValues(raw: RawSchema, path: string): Json[] | undefined {
  if ('const' in raw) return [raw.const!];
  if (raw.enum === undefined) return undefined;
  if (!Array.isArray(raw.enum)) throw new UnsupportedSchemaError(path, 'enum must be an array');
  return raw.enum;
}

function integerKeyword(raw: RawSchema, key: string, path: string): number | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new UnsupportedSchemaError(path, `${key} must be a non-negative integer`);
  return value;
}

function numberKeyword(raw: RawSchema, key: string, path: string): number | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new UnsupportedSchemaError(path, `${key} must be a number`);
  return value;
}

function stringKeyword(raw: RawSchema, key: string, path: string): string | undefined {
  const value = raw[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new UnsupportedSchemaError(path, `${key} must be a string`);
  return value;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function readAnnotations(raw: RawSchema): Annotations {
  const annotations: Annotations = {};
  if (typeof raw.title === 'string') annotations.title = raw.title;
  if (typeof raw.description === 'string' && raw.description.trim() !== '') annotations.description = raw.description;
  if ('default' in raw) annotations.default = raw.default;
  if ('example' in raw) annotations.example = raw.example;
  if (typeof raw['x-openresponses-added-in'] === 'string') annotations.since = raw['x-openresponses-added-in'];
  if (raw.deprecated === true) annotations.deprecated = true;
  return annotations;
}

function mergeObjects(a: ObjectNode, b: ObjectNode, path: string): ObjectNode {
  if (a.additional !== 'any' || b.additional !== 'any') {
    throw new UnsupportedSchemaError(path, 'allOf over objects that restrict additional properties');
  }
  const byName = new Map<string, ObjectProperty>();
  for (const property of [...a.properties, ...b.properties]) {
    const existing = byName.get(property.name);
    if (!existing) {
      byName.set(property.name, property);
      continue;
    }
    const required = existing.required || property.required;
    // A disallowed field stays disallowed whatever the other member says: the intersection admits no value.
    if (existing.disallowed || property.disallowed) {
      byName.set(property.name, { ...(existing.disallowed ? existing : property), required, disallowed: true });
    } else if (JSON.stringify(stripAnnotations(existing.node)) === JSON.stringify(stripAnnotations(property.node))) {
      byName.set(property.name, { ...existing, required });
    } else {
      throw new UnsupportedSchemaError(
        `${path}/properties/${property.name}`,
        'allOf members give the same field different schemas',
      );
    }
  }
  return {
    kind: 'object',
    properties: [...byName.values()],
    additional: 'any',
    annotations: {},
    ...optional('minProperties', maxDefined(a.minProperties, b.minProperties)),
    ...optional('maxProperties', minDefined(a.maxProperties, b.maxProperties)),
  };
}

function maxDefined(a?: number, b?: number) {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
function minDefined(a?: number, b?: number) {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

export function stripAnnotations(node: SchemaNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value) => (key === 'annotations' ? undefined : value)));
}

/**
 * Inline discriminated unions (such as the content parts of `Message.content`) become named schemas,
 * so users can name them and validators share one instance: `<Parent><Property>` or, for array
 * elements, `<Parent><Property>Item`.
 */
function hoistInlineUnions(schemas: NamedSchema[]): NamedSchema[] {
  const taken = new Set(schemas.map((s) => s.name));
  const out: NamedSchema[] = [];
  for (const schema of schemas) {
    const extra: NamedSchema[] = [];
    const visit = (
      node: SchemaNode,
      baseName: string,
      inArray: boolean,
      source: string,
      isRoot: boolean,
    ): SchemaNode => {
      switch (node.kind) {
        case 'array':
          return { ...node, items: visit(node.items, baseName, true, `${source}/items`, false) };
        case 'object':
          return {
            ...node,
            properties: node.properties.map((p) => ({
              ...p,
              node: visit(
                p.node,
                `${isRoot ? schema.name : baseName}${pascalCase(p.name)}`,
                false,
                `${source}/properties/${p.name}`,
                false,
              ),
            })),
          };
        case 'union': {
          const members = node.members.map((m, i) => visit(m, baseName, inArray, `${source}/${node.mode}/${i}`, false));
          const union = { ...node, members };
          if (!isRoot && node.discriminator) {
            const name = inArray ? `${baseName}Item` : baseName;
            if (taken.has(name))
              throw new UnsupportedSchemaError(source, `hoisted union name "${name}" collides with another schema`);
            taken.add(name);
            extra.push({
              name,
              node: { ...union, annotations: { description: node.annotations.description } },
              source,
              open: false,
            });
            const { description: _moved, ...rest } = node.annotations;
            return {
              kind: 'ref',
              name,
              annotations: {
                ...rest,
                ...(node.annotations.description ? { description: node.annotations.description } : {}),
              },
            };
          }
          return union;
        }
        default:
          return node;
      }
    };
    const node = visit(schema.node, schema.name, false, schema.source, true);
    out.push({ ...schema, node }, ...extra);
  }
  return out;
}

function isOpenUnion(node: SchemaNode): boolean {
  return node.kind === 'union' && node.discriminator === 'type';
}

export function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
