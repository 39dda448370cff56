// The JSON Schema -> Gemini Schema conversion (models/gemini/json-schema.ts) on its own: what each keyword
// becomes, what is left out as annotation, and what is refused with a 400 naming the tool's parameters.
import { describe, expect, test } from 'vitest';
import { ResponsesError } from '../src/errors.js';
import { toGeminiSchema } from '../src/models/gemini/index.js';

const PARAM = 'tools[0].parameters';
const convert = (schema: unknown) => toGeminiSchema(schema, PARAM);

describe('toGeminiSchema', () => {
  test('types upper-cased, nested objects and arrays, constraints and descriptions kept', () => {
    expect(
      convert({
        type: 'object',
        description: 'A search',
        properties: {
          query: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\w', description: 'What' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, format: 'int32' },
          ratio: { type: 'number', format: 'double' },
          tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 },
          exact: { type: 'boolean' },
          when: { type: 'string', format: 'date-time' },
        },
        required: ['query'],
      }),
    ).toEqual({
      type: 'OBJECT',
      description: 'A search',
      properties: {
        query: { type: 'STRING', minLength: 1, maxLength: 200, pattern: '^\\w', description: 'What' },
        limit: { type: 'INTEGER', minimum: 1, maximum: 50, default: 10, format: 'int32' },
        ratio: { type: 'NUMBER', format: 'double' },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: 1, maxItems: 5 },
        exact: { type: 'BOOLEAN' },
        when: { type: 'STRING', format: 'date-time' },
      },
      required: ['query'],
    });
  });

  test('null in a type list, in anyOf or in an enum is nullable; oneOf is anyOf; const is a one-value enum', () => {
    expect(convert({ type: 'object', properties: { a: { type: ['string', 'null'] } } })).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'STRING', nullable: true } },
    });
    expect(convert({ type: 'object', properties: { a: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } })).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'INTEGER', nullable: true } },
    });
    expect(
      convert({ type: 'object', properties: { a: { oneOf: [{ type: 'integer' }, { type: 'string' }] } } }),
    ).toEqual({ type: 'OBJECT', properties: { a: { anyOf: [{ type: 'INTEGER' }, { type: 'STRING' }] } } });
    expect(convert({ type: 'object', properties: { a: { enum: ['x', 'y', null] }, b: { const: 'z' } } })).toEqual({
      type: 'OBJECT',
      properties: { a: { type: 'STRING', enum: ['x', 'y'], nullable: true }, b: { type: 'STRING', enum: ['z'] } },
    });
    expect(convert({ type: 'object', properties: { a: { type: ['string', 'integer'] } } })).toEqual({
      type: 'OBJECT',
      properties: { a: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] } },
    });
  });

  test('local $refs are inlined; annotations Gemini has no field for are left out', () => {
    expect(
      convert({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $comment: 'generated',
        type: 'object',
        additionalProperties: false,
        properties: { home: { $ref: '#/$defs/place' }, work: { $ref: '#/definitions/place' } },
        $defs: {
          place: {
            type: 'object',
            properties: { city: { type: 'string', format: 'email' } },
            examples: [{ city: 'Paris' }],
          },
        },
        definitions: { place: { type: 'object', properties: { city: { type: 'string' } } } },
      }),
    ).toEqual({
      type: 'OBJECT',
      properties: {
        home: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, example: { city: 'Paris' } },
        work: { type: 'OBJECT', properties: { city: { type: 'STRING' } } },
      },
    });
  });

  test('no parameters, or an object without properties, is a function without parameters', () => {
    expect(convert(null)).toBeUndefined();
    expect(convert({ type: 'object', properties: {} })).toBeUndefined();
    expect(convert({ type: 'object' })).toBeUndefined();
  });

  test.each([
    [{ type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } }, 'allOf'],
    [{ type: 'object', properties: { a: { not: { type: 'string' } } } }, "'not'"],
    [{ type: 'object', properties: { a: { type: 'number', exclusiveMinimum: 0 } } }, 'exclusiveMinimum'],
    [{ type: 'object', additionalProperties: { type: 'string' } }, 'additionalProperties'],
    [{ type: 'object', properties: { a: { enum: [1, 2] } } }, 'strings only'],
    [{ type: 'object', properties: { a: { type: 'integer', enum: ['1'] } } }, 'string schemas only'],
    [{ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }, 'tuple'],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, 'does not name a definition'],
    [{ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } }, 'only local'],
    [{ type: 'object', properties: { a: { type: 'date' } } }, "'date' is not a JSON Schema type"],
    ['a string', 'JSON Schema object'],
  ])('%j is refused (400, param %s)', (schema, message) => {
    const failure = (() => {
      try {
        convert(schema);
      } catch (error) {
        return error;
      }
    })() as ResponsesError;
    expect(failure).toBeInstanceOf(ResponsesError);
    expect(failure.status).toBe(400);
    expect(failure.param).toBe(PARAM);
    expect(failure.message).toContain(message);
  });

  test('a recursive schema is refused, not expanded forever', () => {
    const tree = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
    };
    expect(() => convert(tree)).toThrow(/recursive/);
  });

  test('a schema nested past 32 levels is refused', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) schema = { type: 'object', properties: { a: schema } };
    expect(() => convert(schema)).toThrow(/32 levels/);
  });
});
