import { describe, expect, test } from 'vitest';
import { changesetFor, diffSpecs, readOpenApi } from '../src/index.js';

const doc = (schemas: Record<string, unknown>) => ({
  paths: {
    '/responses': {
      post: {
        responses: {
          '200': { content: { 'text/event-stream': { schema: { oneOf: [{ $ref: '#/components/schemas/Ping' }] } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Ping: { type: 'object', properties: { type: { type: 'string', enum: ['ping'] } }, required: ['type'] },
      ...schemas,
    },
  },
});
const model = (version: string, schemas: Record<string, unknown>) =>
  readOpenApi(doc(schemas), { version, sha256: '0'.repeat(64) });

describe('spec diff', () => {
  const from = model('A', {
    Item: {
      type: 'object',
      properties: { id: { type: 'string' }, note: { type: 'string' }, gone: { type: 'string' } },
      required: ['id'],
    },
    Old: { type: 'string' },
  });
  const to = model('B', {
    Item: {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        note: { type: 'string' },
        extra: { type: 'string' },
        must: { type: 'string' },
      },
      required: ['id', 'note', 'must'],
    },
    New: { type: 'string' },
  });
  const changes = diffSpecs(from, to);
  const byPath = (p: string) => changes.filter((c) => c.path === p).map((c) => [c.kind, c.breaking]);

  test('classifies each change', () => {
    expect(byPath('Old')).toEqual([['schema-removed', true]]);
    expect(byPath('New')).toEqual([['schema-added', false]]);
    expect(byPath('Item.gone')).toEqual([['field-removed', true]]);
    expect(byPath('Item.note')).toEqual([['field-now-required', true]]);
    expect(byPath('Item.id')).toEqual([['field-changed', true]]);
    expect(byPath('Item.extra')).toEqual([['field-added', false]]);
    expect(byPath('Item.must')).toEqual([['field-added', true]]);
  });

  test('the changeset is major when anything breaks, minor otherwise', () => {
    expect(changesetFor('A', 'B', changes)).toMatch(/"@openresponses\/types": major/);
    expect(
      changesetFor(
        'A',
        'B',
        changes.filter((c) => !c.breaking),
      ),
    ).toMatch(/"@openresponses\/zod": minor/);
  });
});
