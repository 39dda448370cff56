/**
 * Ajv (JSON Schema draft 2020-12) as the oracle for what the spec accepts. `discriminator` is left
 * out (OpenAPI's hint does not change what `oneOf` accepts), so Ajv applies plain `oneOf` semantics.
 * The forward-compatible oracle is the same document with one more `oneOf` member on every union
 * discriminated by `type`: any object whose `type` is a string none of the members declare.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const DOCUMENT_ID = 'https://openresponses.test/openapi.json';

export function createOracle(document: Record<string, unknown>, mode: 'exact' | 'forward') {
  const source = mode === 'forward' ? openDiscriminatedUnions(structuredClone(document)) : document;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema({ ...source, $id: DOCUMENT_ID });
  const cache = new Map<string, ValidateFunction>();
  return (pointer: string, value: unknown): boolean => {
    let validate = cache.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      cache.set(pointer, validate);
    }
    return validate(value) as boolean;
  };
}

function openDiscriminatedUnions(document: Record<string, unknown>): Record<string, unknown> {
  const components = (document.components as { schemas: Record<string, unknown> }).schemas;
  const resolve = (schema: Record<string, unknown>): Record<string, unknown> =>
    typeof schema.$ref === 'string'
      ? resolve(components[schema.$ref.split('/').pop()!] as Record<string, unknown>)
      : schema;
  const typeValues = (schema: Record<string, unknown>): unknown[] => {
    const resolved = resolve(schema);
    if (Array.isArray(resolved.oneOf)) return resolved.oneOf.flatMap((m) => typeValues(m as Record<string, unknown>));
    const type = (resolved.properties as Record<string, Record<string, unknown>> | undefined)?.type;
    if (!type) return [];
    if (Array.isArray(type.enum)) return type.enum;
    if (Array.isArray(type.anyOf)) return type.anyOf.flatMap((m) => (m as { enum?: unknown[] }).enum ?? []);
    return [];
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    for (const child of Object.values(schema)) visit(child);
    const discriminator = schema.discriminator as { propertyName?: string } | undefined;
    if (Array.isArray(schema.oneOf) && discriminator?.propertyName === 'type') {
      const known = [...new Set(schema.oneOf.flatMap((m) => typeValues(m as Record<string, unknown>)))].filter(
        (v) => typeof v === 'string',
      );
      schema.oneOf.push({
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string', not: { enum: known } } },
      });
    }
  };
  visit(document.components);
  visit(document.paths);
  return document;
}
