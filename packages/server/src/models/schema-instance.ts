import type { FunctionToolParam } from '@openresponses/types';
import type { ModelRequest } from './provider.js';

// How the embedded deterministic model (deterministic.ts) fills a JSON Schema from the user's words: its
// function calls' arguments and its structured (`text.format: json_schema`) answers.

/** Most characters of the user's words one string value carries. */
const ARGUMENT_CHARS = 200;

/** Arguments that satisfy the tool's JSON Schema, filled from the user's words where possible. */
export function argumentsFor(tool: FunctionToolParam, text: string): Record<string, unknown> {
  const schema = (tool.parameters ?? {}) as {
    properties?: Record<string, { type?: string | string[]; enum?: unknown[] }>;
    required?: string[];
  };
  const out: Record<string, unknown> = {};
  const properties = schema.properties ?? {};
  const names = schema.required?.length ? schema.required : Object.keys(properties);
  const place =
    /\b(?:in|for|at|to|from|about)\s+([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*)/u.exec(text)?.[1] ??
    /(?<!^|[.!?]\s)\b([A-Z][\p{L}'-]+)/u.exec(text)?.[1];
  const number = /-?\d+(?:\.\d+)?/.exec(text)?.[0];
  // Bounded: a string argument is at most ARGUMENT_CHARS of the user's words, so a long message with a
  // many-property schema cannot multiply into a huge answer.
  const words = clip(place ?? (text.trim() || 'example'), ARGUMENT_CHARS);
  for (const name of names) {
    const property = properties[name] ?? {};
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    if (property.enum?.length) out[name] = property.enum[0];
    else if (type === 'number' || type === 'integer')
      out[name] = number ? (type === 'integer' ? Math.trunc(Number(number)) : Number(number)) : 1;
    else if (type === 'boolean') out[name] = true;
    else if (type === 'array' || type === 'object') out[name] = instanceOf(property, { text: words, number }, schema);
    else out[name] = words;
  }
  return out;
}

/**
 * The answer in the requested `text.format`: a `json_schema` answer is an instance of the schema (strings
 * from the answer's words), a `json_object` answer wraps the text as `{"answer": …}`; plain text otherwise.
 */
export function formatted(request: ModelRequest, text: string): string {
  const format = request.text?.format;
  if (format?.type !== 'json_schema') return text;
  const schema = (format as { schema?: unknown }).schema as JsonSchema | undefined;
  // Any object will do (`json_object`, lowered to this schema by the superset profile): the text as `answer`.
  if (isOpenObject(schema)) return JSON.stringify({ answer: text });
  const number = /-?\d+(?:\.\d+)?/.exec(text)?.[0];
  return JSON.stringify(instanceOf(schema as JsonSchema, { text: clip(text, ARGUMENT_CHARS), number }, schema));
}

/** `{ type: 'object' }` and nothing more: an object with any properties. */
function isOpenObject(schema: JsonSchema | undefined): boolean {
  return (
    !!schema &&
    schema.type === 'object' &&
    Object.keys(schema).every((keyword) => keyword === 'type' || keyword === 'additionalProperties') &&
    (schema as { additionalProperties?: unknown }).additionalProperties !== false
  );
}

/** The JSON Schema keywords the embedded model reads to make a valid instance. */
interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

/** Deepest nesting the embedded model fills (a recursive `$ref` ends in null there). */
const MAX_INSTANCE_DEPTH = 16;

/**
 * A value valid against `schema` (the keywords of `JsonSchema`, with local `$ref`s into `root`), filled from
 * the user's words and first number: every property of an object, `minItems` elements of an array, the first
 * `enum` value or `anyOf` option, strings within their length and format.
 */
function instanceOf(
  schema: JsonSchema | undefined,
  fill: { text: string; number?: string },
  root: unknown,
  depth = 0,
): unknown {
  if (!schema || typeof schema !== 'object' || depth > MAX_INSTANCE_DEPTH) return null;
  if (typeof schema.$ref === 'string') return instanceOf(resolveRef(root, schema.$ref), fill, root, depth + 1);
  if ('const' in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) {
    const option = options.find((o) => o?.type !== 'null') ?? options[0];
    return instanceOf(option, fill, root, depth + 1);
  }
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((part) => instanceOf(part, fill, root, depth + 1));
    return parts.every((part) => part && typeof part === 'object' && !Array.isArray(part))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : 'string');
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
    case 'number': {
      let value = fill.number === undefined ? 1 : Number(fill.number);
      if (type === 'integer') value = Math.trunc(value);
      if (schema.minimum !== undefined && value < schema.minimum) value = Math.ceil(schema.minimum);
      if (schema.maximum !== undefined && value > schema.maximum) value = Math.floor(schema.maximum);
      return value;
    }
    case 'array':
      return Array.from({ length: Math.min(schema.minItems ?? 0, 16) }, () =>
        instanceOf(schema.items ?? {}, fill, root, depth + 1),
      );
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [
          name,
          instanceOf(property, fill, root, depth + 1),
        ]),
      );
    default:
      return stringFor(schema, fill.text);
  }
}

/** A string for the schema: a placeholder of its `format`, or the text within `minLength`..`maxLength`. */
function stringFor(schema: JsonSchema, text: string): string {
  const byFormat = STRING_FORMATS[schema.format ?? ''];
  if (byFormat) return byFormat;
  let value = text || 'example';
  if (schema.maxLength !== undefined) value = value.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, '.');
  return value;
}

const STRING_FORMATS: Readonly<Record<string, string>> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

/** A local `$ref` (`#/$defs/Name`, `#/definitions/Name`, `#`) in `root`; undefined for any other. */
function resolveRef(root: unknown, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node = root;
  for (const key of ref.slice(1).split('/').filter(Boolean)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node as JsonSchema | undefined;
}

/** The text cut to `max` characters, an ellipsis marking the cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
