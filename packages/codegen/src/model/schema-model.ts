/**
 * The intermediate model the emitters work from: a small, closed set of schema shapes that every
 * construct of the Open Responses OpenAPI documents is reduced to. Anything the reader cannot reduce
 * to these shapes fails generation with its schema path, so no type is ever silently widened.
 */

export interface Annotations {
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  /** `x-openresponses-added-in`: the spec version that introduced the schema or field. */
  since?: string;
  deprecated?: boolean;
}

/** One schema as the model holds it: a closed set of shapes every target handles. */
export type SchemaNode =
  | RefNode
  | StringNode
  | NumberNode
  | BooleanNode
  | NullNode
  | AnyNode
  | NeverNode
  | ArrayNode
  | ObjectNode
  | UnionNode;

interface NodeBase {
  annotations: Annotations;
}

export interface RefNode extends NodeBase {
  kind: 'ref';
  name: string;
}

export interface StringNode extends NodeBase {
  kind: 'string';
  enum?: string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

export interface NumberNode extends NodeBase {
  kind: 'number';
  integer: boolean;
  enum?: number[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface BooleanNode extends NodeBase {
  kind: 'boolean';
  enum?: boolean[];
}

export interface NullNode extends NodeBase {
  kind: 'null';
}

/** Any JSON value (`{}` or a description-only schema). */
export interface AnyNode extends NodeBase {
  kind: 'any';
}

/** No value is valid: how `x-openresponses-disallowed` fields are modelled. */
export interface NeverNode extends NodeBase {
  kind: 'never';
}

export interface ArrayNode extends NodeBase {
  kind: 'array';
  items: SchemaNode;
  minItems?: number;
  maxItems?: number;
}

export interface ObjectProperty {
  name: string;
  node: SchemaNode;
  required: boolean;
  /** `x-openresponses-disallowed`: the field must be absent. */
  disallowed: boolean;
}

export interface ObjectNode extends NodeBase {
  kind: 'object';
  properties: ObjectProperty[];
  /** `any`: unknown keys are allowed (JSON Schema's default); `none`: `additionalProperties: false`; a node: a map's value schema. */
  additional: 'any' | 'none' | SchemaNode;
  minProperties?: number;
  maxProperties?: number;
}

export interface UnionNode extends NodeBase {
  kind: 'union';
  /** `anyOf`: at least one member matches; `oneOf`: exactly one member matches. */
  mode: 'anyOf' | 'oneOf';
  members: SchemaNode[];
  /** The OpenAPI `discriminator.propertyName`, when declared. */
  discriminator?: string;
}

/** A named schema of the model: a component, or an inline union hoisted with a name. */
export interface NamedSchema {
  /** The schema's name (`ResponseResource`, `ItemFieldContentItem`). */
  name: string;
  /** The schema itself. */
  node: SchemaNode;
  /** Where it came from in the document, for messages. */
  source: string;
  /**
   * Open unions accept unknown members in forward-compatible mode: the `type`-discriminated unions of
   * items, content, annotations, tools and streaming events (clients MUST ignore what they do not know).
   */
  open: boolean;
}

/** One spec version as the generator models it. */
export interface SpecModel {
  /** The spec version (its date, `YYYY-MM-DD`). */
  version: string;
  /** The document's sha256. */
  sha256: string;
  /** Named schemas in document order (components first, then synthesized ones). */
  schemas: NamedSchema[];
  /** Name of the synthesized streaming-event union. */
  streamingEventUnion: string;
}

/**
 * The documentation a use site shows. The spec often puts a nullable field's description inside the
 * non-null `anyOf` member (`{ anyOf: [{ type: 'string', description }, { type: 'null' }] }`), where
 * it documents nothing: it belongs to the field. When the node says nothing itself, its described
 * members speak for it (one: its annotations; several: a list of their descriptions).
 */
export function useSiteAnnotations(node: SchemaNode): Annotations {
  if (node.annotations.description !== undefined || node.kind !== 'union') return node.annotations;
  const described = node.members.map(useSiteAnnotations).filter((annotations) => annotations.description !== undefined);
  if (described.length === 0) return node.annotations;
  if (described.length === 1) return { ...described[0], ...node.annotations };
  // Several described alternatives (a string or an array of parts): the field is any one of them.
  const description = described.map((a) => `- ${a.description}`).join('\n');
  return { ...node.annotations, description: `One of:\n${description}` };
}

/** A schema construct the reader does not handle; names where it is. */
export class UnsupportedSchemaError extends Error {
  constructor(
    /** Where in the document (`#/components/schemas/X/properties/y`). */
    readonly schemaPath: string,
    detail: string,
  ) {
    super(`Unsupported schema at ${schemaPath}: ${detail}`);
    this.name = 'UnsupportedSchemaError';
  }
}
