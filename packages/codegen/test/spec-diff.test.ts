// The direction-aware spec diff on small fixture documents: one test per rule, each checked for a schema
// clients write (request), one they read (response and events), and one that flows both ways.
import { describe, expect, test } from 'vitest';
import { changesetFor, diffSpecs, readOpenApi, type SpecChange, schemaFlows } from '../src/index.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A document whose paths make `Request` (and what it reaches) request-only, `Response` and `Event` response-only,
 * `Shared` both, and `Loose` reached by no path. `schemas` replaces or adds component schemas.
 */
function document(schemas: Record<string, unknown>) {
  return {
    openapi: '3.1.0',
    paths: {
      '/responses': {
        post: {
          requestBody: { content: { 'application/json': { schema: ref('Request') } } },
          responses: {
            '200': {
              content: {
                'application/json': { schema: ref('Response') },
                'text/event-stream': { schema: { oneOf: [ref('Event')] } },
              },
            },
          },
        },
        'x-openresponses-websocket': { clientMessage: ref('SocketMessage'), errorMessage: ref('SocketError') },
      },
    },
    components: {
      schemas: {
        Request: object({ input: ref('Input'), shared: ref('Shared') }),
        Input: object({ text: { type: 'string' } }),
        Response: object({ output: ref('Output'), shared: ref('Shared') }),
        Output: object({ text: { type: 'string' } }),
        Event: object({ type: { type: 'string', enum: ['ping'] } }, ['type']),
        SocketMessage: object({ effort: ref('Effort') }),
        SocketError: object({ code: { type: 'string' } }),
        Effort: { type: 'string', enum: ['low', 'high'] },
        Shared: object({ text: { type: 'string' } }),
        Loose: object({ text: { type: 'string' } }),
        ...schemas,
      },
    },
  };
}
function object(properties: Record<string, unknown>, required: string[] = []) {
  return { type: 'object', properties, required };
}
const input = (schemas: Record<string, unknown>) => {
  const doc = document(schemas);
  return { model: readOpenApi(doc, { version: 'test', sha256: '0'.repeat(64) }), document: doc };
};
/** The changes when the schemas named in `before` become those in `after`. */
function diff(before: Record<string, unknown>, after: Record<string, unknown>): SpecChange[] {
  return diffSpecs(input(before), input(after));
}
/** The same change applied to the request-only, response-only and shared schema. */
function acrossFlows(before: unknown, after: unknown) {
  const result: Record<string, SpecChange[]> = {};
  for (const name of ['Input', 'Output', 'Shared'])
    result[name] = diff({ [name]: before }, { [name]: after }).map(({ schema, ...rest }) => {
      expect(schema).toBe(name);
      return rest as SpecChange;
    });
  return result;
}

describe('schema flow', () => {
  test('each schema is classified by the paths that reach it, transitively', () => {
    const { model, document: doc } = input({});
    const flows = Object.fromEntries(schemaFlows(doc, model));
    expect(flows).toMatchObject({
      Request: 'request',
      Input: 'request',
      SocketMessage: 'request',
      Effort: 'request',
      Response: 'response',
      Output: 'response',
      Event: 'response',
      SocketError: 'response',
      StreamingEvent: 'response',
      Shared: 'both',
      Loose: 'both',
    });
  });
});

describe('direction-aware rules', () => {
  test('an added enum value breaks readers and is additive for writers, naming the value', () => {
    const changes = acrossFlows(
      object({ level: { type: 'string', enum: ['a'] } }),
      object({ level: { type: 'string', enum: ['a', 'b', 'c'] } }),
    );
    expect(changes).toEqual({
      Input: [
        {
          path: 'Input.level',
          kind: 'enum-values-added',
          change: 'enum values "b", "c" added',
          direction: 'request',
          breaking: false,
        },
      ],
      Output: [expect.objectContaining({ kind: 'enum-values-added', direction: 'response', breaking: true })],
      Shared: [expect.objectContaining({ kind: 'enum-values-added', direction: 'both', breaking: true })],
    });
  });

  test('a removed enum value breaks writers and not readers', () => {
    const changes = acrossFlows(
      object({ level: { type: 'string', enum: ['a', 'b'] } }),
      object({ level: { type: 'string', enum: ['a'] } }),
    );
    expect(Object.values(changes).map(([c]) => [c!.change, c!.direction, c!.breaking])).toEqual([
      ['enum value "b" removed', 'request', true],
      ['enum value "b" removed', 'response', false],
      ['enum value "b" removed', 'both', true],
    ]);
  });

  test('a named enum schema (the ReasoningEffortEnum case) names its new value', () => {
    expect(diff({}, { Effort: { type: 'string', enum: ['low', 'high', 'xhigh'] } })).toEqual([
      {
        schema: 'Effort',
        path: 'Effort',
        kind: 'enum-values-added',
        change: 'enum value "xhigh" added',
        direction: 'request',
        breaking: false,
      },
    ]);
  });

  test('an added union member breaks readers and is additive for writers; removal is the reverse', () => {
    const two = { oneOf: [ref('Loose'), { type: 'string' }] };
    const three = { oneOf: [ref('Loose'), { type: 'string' }, ref('Event')] };
    const added = acrossFlows(object({ part: two }), object({ part: three }));
    expect(Object.values(added).map(([c]) => [c!.path.split('.')[1], c!.change, c!.breaking])).toEqual([
      ['part', 'union member Event added', false],
      ['part', 'union member Event added', true],
      ['part', 'union member Event added', true],
    ]);
    const removed = acrossFlows(object({ part: three }), object({ part: two }));
    expect(Object.values(removed).map(([c]) => [c!.kind, c!.breaking])).toEqual([
      ['union-members-removed', true],
      ['union-members-removed', false],
      ['union-members-removed', true],
    ]);
  });

  test('a new event type is breaking: the events union is read', () => {
    const [change] = diff({}, { Pong: object({ type: { type: 'string', enum: ['pong'] } }, ['type']) }).filter(
      (c) => c.schema === 'StreamingEvent',
    );
    expect(change).toBeUndefined(); // adding a component alone changes no union
    const withEvent = input({ Pong: object({ type: { type: 'string', enum: ['pong'] } }, ['type']) });
    (
      withEvent.document.paths['/responses'].post.responses['200'].content['text/event-stream'].schema
        .oneOf as unknown[]
    ).push(ref('Pong'));
    const changes = diffSpecs(input({}), {
      model: readOpenApi(withEvent.document, { version: 'test', sha256: '0'.repeat(64) }),
      document: withEvent.document,
    });
    expect(changes.find((c) => c.schema === 'StreamingEvent')).toEqual({
      schema: 'StreamingEvent',
      path: 'StreamingEvent',
      kind: 'union-members-added',
      change: 'union member Pong added',
      direction: 'response',
      breaking: true,
    });
  });

  test('a new required field breaks writers; a new optional field breaks nobody', () => {
    const required = acrossFlows(object({}), object({ must: { type: 'string' } }, ['must']));
    expect(Object.values(required).map(([c]) => [c!.change, c!.breaking])).toEqual([
      ['field must added (required, string)', true],
      ['field must added (required, string)', false],
      ['field must added (required, string)', true],
    ]);
    const optional = acrossFlows(object({}), object({ may: { type: 'integer' } }));
    expect(Object.values(optional).map(([c]) => [c!.change, c!.breaking])).toEqual([
      ['field may added (optional, integer)', false],
      ['field may added (optional, integer)', false],
      ['field may added (optional, integer)', false],
    ]);
  });

  test('a field that became optional breaks readers; one that became required breaks writers', () => {
    const optional = acrossFlows(object({ f: { type: 'string' } }, ['f']), object({ f: { type: 'string' } }));
    expect(Object.values(optional).map(([c]) => [c!.kind, c!.breaking])).toEqual([
      ['field-now-optional', false],
      ['field-now-optional', true],
      ['field-now-optional', true],
    ]);
    const required = acrossFlows(object({ f: { type: 'string' } }), object({ f: { type: 'string' } }, ['f']));
    expect(Object.values(required).map(([c]) => [c!.change, c!.breaking])).toEqual([
      ['field f is now required', true],
      ['field f is now required', false],
      ['field f is now required', true],
    ]);
  });

  test('a nullable field breaks readers only', () => {
    const changes = acrossFlows(
      object({ f: { type: 'string' } }),
      object({ f: { anyOf: [{ type: 'string' }, { type: 'null' }] } }),
    );
    expect(Object.values(changes).map(([c]) => [c!.change, c!.breaking])).toEqual([
      ['now also accepts null', false],
      ['now also accepts null', true],
      ['now also accepts null', true],
    ]);
  });

  test('bounds: looser breaks readers, tighter breaks writers', () => {
    const looser = acrossFlows(
      object({ s: { type: 'string', maxLength: 10 } }),
      object({ s: { type: 'string', maxLength: 20 } }),
    );
    expect(Object.values(looser).map(([c]) => [c!.change, c!.breaking])).toEqual([
      ['maxLength 10 -> 20', false],
      ['maxLength 10 -> 20', true],
      ['maxLength 10 -> 20', true],
    ]);
    const tighter = acrossFlows(
      object({ n: { type: 'integer', minimum: 0 } }),
      object({ n: { type: 'integer', minimum: 1 } }),
    );
    expect(Object.values(tighter).map(([c]) => [c!.kind, c!.breaking])).toEqual([
      ['constraint-tightened', true],
      ['constraint-tightened', false],
      ['constraint-tightened', true],
    ]);
  });

  test('removed fields and schemas and changed types break everyone and say what they were', () => {
    const changes = diff(
      { Input: object({ gone: { type: 'string' }, kept: { type: 'string' } }), Extra: object({}) },
      { Input: object({ kept: { type: 'integer' } }) },
    );
    expect(changes.map((c) => [c.path, c.kind, c.change, c.breaking])).toEqual([
      ['Extra', 'schema-removed', 'schema removed', true],
      ['Input.gone', 'field-removed', 'field gone removed', true],
      ['Input.kept', 'type-changed', 'type changed from string to integer', true],
    ]);
  });

  test('changes inside arrays, maps and nested objects are found and located', () => {
    const changes = diff(
      {
        Output: object({
          list: { type: 'array', items: { type: 'string', enum: ['x'] } },
          map: { type: 'object', additionalProperties: object({ v: { type: 'string' } }) },
        }),
      },
      {
        Output: object({
          list: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } },
          map: { type: 'object', additionalProperties: object({ v: { type: 'string' } }, ['v']) },
        }),
      },
    );
    expect(changes.map((c) => [c.path, c.change, c.breaking])).toEqual([
      ['Output.list[]', 'enum value "y" added', true],
      ['Output.map{}.v', 'field v is now required', false],
    ]);
  });

  test('an added schema is additive and nothing else changes for identical documents', () => {
    expect(diff({}, {})).toEqual([]);
    expect(diff({}, { Fresh: object({}) })).toEqual([
      {
        schema: 'Fresh',
        path: 'Fresh',
        kind: 'schema-added',
        change: 'schema added',
        direction: 'both',
        breaking: false,
      },
    ]);
  });
});

describe('changeset', () => {
  test('a spec version is a minor release of the generated packages that lists what breaks', () => {
    const changes = diff(
      {},
      {
        Effort: { type: 'string', enum: ['low'] },
        Output: object({ text: { type: 'string' }, n: { type: 'number' } }),
      },
    );
    const text = changesetFor('2026-01-01', '2026-02-02', changes);
    expect(text).toMatch(/^---\n"@openresponses\/types": minor\n"@openresponses\/zod": minor\n---\n/);
    expect(text).toContain('Changes since 2026-01-01: 2, 1 breaking');
    expect(text).toContain('Breaking:\n\n- `Effort` (request): enum value "high" removed');
    expect(text).toContain('Additive:\n\n- `Output.n` (response): field n added (optional, number)');
    expect(text).toContain('`@openresponses/types/2026-01-01`');
  });
});
