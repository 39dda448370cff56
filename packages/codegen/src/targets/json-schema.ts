import type { ModelAnalysis, ValidationMode } from '../model/analysis.js';
import { type Annotations, type SchemaNode, useSiteAnnotations } from '../model/schema-model.js';
import { generatedHeader, moduleComment } from '../emit/docs.js';
import type { GeneratorTarget } from './target.js';

type JsonSchema = Record<string, unknown>;

const DRAFT = 'http://json-schema.org/draft-07/schema#';

/**
 * `@openresponses/types/json-schema` and `…/json-schema/<version>`: every named schema as plain JSON
 * Schema (draft-07: `definitions` and local `$ref`s only, no OpenAPI keywords), so Ajv,
 * @cfworker/json-schema and other validators load a document as it is. Both validation modes; the
 * lowering (open unions, disallowed fields, code-point lengths) is the model's, as in every target.
 */
export const jsonSchemaTarget: GeneratorTarget = {
  name: 'json-schema',
  packageName: 'types',
  emitVersion({ version, sha256, analysis }) {
    const exact = definitions(analysis, 'exact');
    const forward = definitions(analysis, 'forward');
    const changed = Object.keys(forward).filter(
      (name) => JSON.stringify(forward[name]) !== JSON.stringify(exact[name]),
    );
    const names = analysis.model.schemas.map((s) => s.name);
    return {
      [`json-schema/${version}/index.gen.ts`]: [
        generatedHeader(version, sha256) +
          moduleComment(
            `Every named schema of spec version ${version} as a self-contained JSON Schema (draft-07) document, for Ajv, @cfworker/json-schema or any other validator: \`jsonSchema(name, mode)\`.`,
          ),
        `/** A JSON Schema (draft-07) document: self-contained, local \`$ref\`s into \`definitions\`. */`,
        `export interface JsonSchemaDocument {`,
        `  /** The draft-07 meta-schema URI. */`,
        `  $schema: string;`,
        `  /** The named schema this document validates (\`#/definitions/<Name>\`). */`,
        `  $ref: string;`,
        `  /** Every named schema of the version, as \`$ref\` targets. */`,
        `  definitions: Record<string, unknown>;`,
        `}`,
        `/** Every named schema of this spec version. */`,
        `export type SchemaName =\n${names.map((n) => `  | ${JSON.stringify(n)}`).join('\n')};`,
        `/** The spec-exact definitions, one per named schema. */`,
        `export const definitions: Record<SchemaName, unknown> = ${JSON.stringify(exact, null, 2)};`,
        `/** The forward-compatible definitions: open unions also accept objects of unknown \`type\`. */`,
        `export const forwardDefinitions: Record<SchemaName, unknown> = /*#__PURE__*/ Object.assign({}, definitions, ${JSON.stringify(Object.fromEntries(changed.map((n) => [n, forward[n]])), null, 2)});`,
        `/** A document validating \`name\`, for \`new Ajv().compile(jsonSchema('ResponseResource'))\` and alike. */`,
        `export function jsonSchema(name: SchemaName, mode: 'exact' | 'forward' = 'exact'): JsonSchemaDocument {`,
        `  return { $schema: ${JSON.stringify(DRAFT)}, $ref: \`#/definitions/\${name}\`, definitions: mode === 'exact' ? definitions : forwardDefinitions };`,
        `}`,
        `/** The spec version these schemas were generated from. */`,
        `export const SPEC_VERSION = ${JSON.stringify(version)};`,
        '',
      ].join('\n'),
    };
  },
  emitIndex({ latest, header }) {
    const description =
      "The latest spec version's schemas as self-contained JSON Schema (draft-07) documents: `jsonSchema(name, mode)`. `@openresponses/types/json-schema/<version>` pins one version.";
    return {
      'json-schema/index.gen.ts': `${header}${moduleComment(description)}export * from './${latest}/index.gen.js';\n`,
    };
  },
};

function definitions(analysis: ModelAnalysis, mode: ValidationMode): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const schema of analysis.model.schemas) {
    let node = toJsonSchema(schema.node);
    if (mode === 'forward' && schema.open) {
      const known = analysis.openUnionTypes(schema.node).filter((t): t is string => t !== null);
      const { description, ...rest } = node;
      node = {
        ...(description ? { description } : {}),
        anyOf: [
          rest,
          { type: 'object', required: ['type'], properties: { type: { type: 'string', not: { enum: known } } } },
        ],
      };
    }
    out[schema.name] = node;
  }
  return out;
}

function toJsonSchema(node: SchemaNode): JsonSchema {
  return { ...documentation(node.annotations), ...keywords(node) };
}

function documentation(annotations: Annotations): JsonSchema {
  return {
    ...(annotations.description ? { description: annotations.description } : {}),
    ...(annotations.deprecated ? { deprecated: true } : {}),
  };
}

function keywords(node: SchemaNode): JsonSchema {
  switch (node.kind) {
    case 'ref':
      return { $ref: `#/definitions/${node.name}` };
    case 'string':
      return {
        type: 'string',
        ...(node.enum ? { enum: node.enum } : {}),
        ...(node.minLength !== undefined ? { minLength: node.minLength } : {}),
        ...(node.maxLength !== undefined ? { maxLength: node.maxLength } : {}),
        ...(node.pattern !== undefined ? { pattern: node.pattern } : {}),
      };
    case 'number':
      return {
        type: node.integer ? 'integer' : 'number',
        ...(node.enum ? { enum: node.enum } : {}),
        ...(node.minimum !== undefined ? { minimum: node.minimum } : {}),
        ...(node.maximum !== undefined ? { maximum: node.maximum } : {}),
        ...(node.exclusiveMinimum !== undefined ? { exclusiveMinimum: node.exclusiveMinimum } : {}),
        ...(node.exclusiveMaximum !== undefined ? { exclusiveMaximum: node.exclusiveMaximum } : {}),
      };
    case 'boolean':
      return { type: 'boolean', ...(node.enum ? { enum: node.enum } : {}) };
    case 'null':
      return { type: 'null' };
    case 'any':
      return {};
    case 'never':
      return { not: {} };
    case 'array':
      return {
        type: 'array',
        items: toJsonSchema(node.items),
        ...(node.minItems !== undefined ? { minItems: node.minItems } : {}),
        ...(node.maxItems !== undefined ? { maxItems: node.maxItems } : {}),
      };
    case 'object': {
      const required = node.properties.filter((p) => p.required && !p.disallowed).map((p) => p.name);
      return {
        type: 'object',
        ...(node.properties.length > 0
          ? {
              properties: Object.fromEntries(
                node.properties.map((p) => [
                  p.name,
                  p.disallowed
                    ? { not: {} }
                    : { ...toJsonSchema(p.node), ...documentation(useSiteAnnotations(p.node)) },
                ]),
              ),
            }
          : {}),
        ...(required.length > 0 ? { required } : {}),
        ...(node.additional === 'none'
          ? { additionalProperties: false }
          : node.additional === 'any'
            ? {}
            : { additionalProperties: toJsonSchema(node.additional) }),
        ...(node.minProperties !== undefined ? { minProperties: node.minProperties } : {}),
        ...(node.maxProperties !== undefined ? { maxProperties: node.maxProperties } : {}),
      };
    }
    case 'union':
      return { [node.mode]: node.members.map(toJsonSchema) };
  }
}
