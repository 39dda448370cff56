import { invalidRequest } from '../../errors.js';
import type { GeminiSchema } from './wire.js';

/** Deepest nesting (and `$ref` expansion) converted; a deeper or recursive schema is refused. */
const MAX_SCHEMA_DEPTH = 32;

/**
 * Keywords Gemini's `Schema` has no form of, and whose meaning would be lost if left out: a schema using one
 * is refused (400 naming it) rather than sent looser than the client wrote it.
 */
const REFUSED = new Set([
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'dependentSchemas',
  'dependentRequired',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
]);

/** The `format`s Gemini reads, per type (others are annotations in JSON Schema and are left out). */
const FORMATS: Record<string, readonly string[]> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

const TYPES: Record<string, NonNullable<GeminiSchema['type']>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

type JsonSchema = Record<string, unknown>;

/**
 * A function's JSON Schema `parameters` in the dialect `functionDeclarations[].parameters` takes (Gemini's
 * `Schema`, an OpenAPI 3.0 subset): upper-case types, `["T", "null"]` and `anyOf` with `{ type: "null" }` as
 * `nullable`, `oneOf` as `anyOf`, `const` as a one-value `enum`, local `$ref`s (`#/$defs/…`, `#/definitions/…`)
 * inlined. Annotations Gemini has no field for (`$schema`, `$comment`, `examples` past the first,
 * `additionalProperties: false`, formats it does not read) are left out; keywords that constrain and have no
 * Gemini form (`allOf`, `not`, `if`, `exclusiveMinimum`, a schema-valued `additionalProperties`, …) are a 400
 * naming `param`. An object schema without properties is `undefined` (a function without parameters).
 */
export function toGeminiSchema(schema: unknown, param: string): GeminiSchema | undefined {
  if (schema === null || schema === undefined) return undefined;
  if (typeof schema !== 'object' || Array.isArray(schema))
    throw refused(param, 'a function tool’s parameters must be a JSON Schema object');
  const root = schema as JsonSchema;
  const converted = convert(root, root, param, 0, new Set());
  if (
    converted.type === 'OBJECT' &&
    (converted.properties === undefined || Object.keys(converted.properties).length === 0) &&
    converted.anyOf === undefined
  )
    return undefined;
  return converted;
}

function convert(schema: JsonSchema, root: JsonSchema, param: string, depth: number, refs: Set<string>): GeminiSchema {
  if (depth > MAX_SCHEMA_DEPTH) throw refused(param, `the schema nests more than ${MAX_SCHEMA_DEPTH} levels deep`);
  if (typeof schema.$ref === 'string')
    return convert(resolve(schema.$ref, root, param, refs), root, param, depth + 1, new Set([...refs, schema.$ref]));
  for (const keyword of Object.keys(schema))
    if (REFUSED.has(keyword)) throw refused(param, `Gemini's schema dialect has no '${keyword}'`);
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    throw refused(param, "Gemini's schema dialect has no 'additionalProperties' other than false");

  const out: GeminiSchema = {};
  const child = (value: unknown, where: string) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw refused(param, `'${where}' is not a schema`);
    return convert(value as JsonSchema, root, param, depth + 1, refs);
  };

  let types = schema.type === undefined ? [] : Array.isArray(schema.type) ? [...schema.type] : [schema.type];
  if (types.includes('null')) {
    out.nullable = true;
    types = types.filter((type) => type !== 'null');
  }
  for (const type of types)
    if (typeof type !== 'string' || !(type in TYPES))
      throw refused(param, `'${String(type)}' is not a JSON Schema type`);
  if (types.length === 1) out.type = TYPES[types[0] as string];
  else if (types.length > 1) out.anyOf = types.map((type) => ({ type: TYPES[type as string] }));

  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown;
  if (alternatives !== undefined) {
    if (!Array.isArray(alternatives)) throw refused(param, "'anyOf' is not an array");
    if (out.anyOf) throw refused(param, "a schema with several types and 'anyOf' has no Gemini form");
    const members = alternatives.filter((member) => {
      const isNull = member && typeof member === 'object' && (member as JsonSchema).type === 'null';
      if (isNull) out.nullable = true;
      return !isNull;
    });
    const converted = members.map((member, index) => child(member, `anyOf[${index}]`));
    if (converted.length === 1) Object.assign(out, converted[0]);
    else if (converted.length > 1) out.anyOf = converted;
  }

  if (schema.const !== undefined) out.enum = [enumValue(schema.const, param)];
  else if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum)) throw refused(param, "'enum' is not an array");
    const values = schema.enum.filter((value) => value !== null);
    if (values.length < schema.enum.length) out.nullable = true;
    out.enum = values.map((value) => enumValue(value, param));
  }
  // Gemini takes enums on strings only; an enum without a type is one.
  if (out.enum) {
    if (out.type !== undefined && out.type !== 'STRING')
      throw refused(param, 'Gemini takes enum values on string schemas only');
    out.type = 'STRING';
  }

  if (typeof schema.format === 'string' && out.type && FORMATS[out.type]?.includes(schema.format))
    out.format = schema.format;
  for (const key of ['title', 'description', 'pattern'] as const)
    if (typeof schema[key] === 'string') out[key] = schema[key] as string;
  for (const key of [
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'minProperties',
    'maxProperties',
  ] as const)
    if (typeof schema[key] === 'number') (out as Record<string, unknown>)[key] = schema[key];
  if (schema.default !== undefined) out.default = schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) out.example = schema.examples[0];

  if (schema.properties !== undefined) {
    if (!schema.properties || typeof schema.properties !== 'object' || Array.isArray(schema.properties))
      throw refused(param, "'properties' is not an object");
    out.properties = {};
    for (const [name, value] of Object.entries(schema.properties as JsonSchema))
      out.properties[name] = child(value, `properties.${name}`);
    out.type ??= 'OBJECT';
  }
  if (Array.isArray(schema.required) && schema.required.length > 0)
    out.required = schema.required.filter((name): name is string => typeof name === 'string');
  if (schema.items !== undefined) {
    if (Array.isArray(schema.items)) throw refused(param, 'Gemini has no tuple arrays (items as an array)');
    out.items = child(schema.items, 'items');
    out.type ??= 'ARRAY';
  }
  return out;
}

function resolve(ref: string, root: JsonSchema, param: string, seen: Set<string>): JsonSchema {
  if (seen.has(ref)) throw refused(param, `the schema is recursive ('${ref}'); Gemini's schema dialect cannot say so`);
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = match ? (root[match[1]!] as JsonSchema | undefined) : undefined;
  const target =
    match && defs && typeof defs === 'object'
      ? defs[decodeURIComponent(match[2]!.replace(/~1/g, '/').replace(/~0/g, '~'))]
      : undefined;
  if (!target || typeof target !== 'object' || Array.isArray(target))
    throw refused(
      param,
      `'$ref' ${ref} does not name a definition of this schema (only local #/$defs/… refs are inlined)`,
    );
  return target as JsonSchema;
}

function enumValue(value: unknown, param: string): string {
  if (typeof value !== 'string') throw refused(param, 'Gemini takes enum and const values as strings only');
  return value;
}

const refused = (param: string, why: string) =>
  invalidRequest('unsupported_schema', `This schema cannot be sent to a Gemini upstream: ${why}.`, param);
