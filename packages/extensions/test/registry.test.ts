import { createStreamWriter, startingResponse, type AnyStreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { validate } from '@openresponses/zod';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  createRegistry,
  defineEvent,
  defineFields,
  defineItem,
  defineTool,
  ExtensionDefinitionError,
} from '../src/index.js';

const searchResult = defineItem('acme:search_result', {
  query: z.string(),
  hits: z.array(z.object({ url: z.string(), score: z.number() })),
});
const trace = defineEvent(
  'acme:trace_event',
  { span: z.string(), ms: z.number() },
  {
    fold: (response, event) => {
      const metadata = (response.metadata ??= {}) as Record<string, string>;
      metadata['acme:last_span'] = event.span;
    },
  },
);
const documentSearch = defineTool('acme:document_search', {
  param: { index: z.string() },
  item: defineItem('acme:document_search_call', { results: z.array(z.string()) }),
});
const priority = defineFields('CreateResponseBody', { 'acme:priority': z.number().int().min(0).max(9) });
const registry = createRegistry({
  items: [searchResult],
  events: [trace],
  tools: [documentSearch],
  fields: [priority],
});

const start = (): ResponseResource => startingResponse({ id: 'resp_x', created_at: 1, model: 'm' });

describe('definitions enforce the spec rules', () => {
  test.each(['acme', 'Acme:thing', 'acme:', ':thing', 'response.completed', 'message', 'acme thing:x'])(
    'the slug "%s" is refused',
    (type) => {
      expect(() => defineItem(type as `${string}:${string}`, {})).toThrow(ExtensionDefinitionError);
      expect(() => defineEvent(type as `${string}:${string}`, {})).toThrow(/slug-prefixed/);
    },
  );
  test('core fields cannot be redefined', () => {
    expect(() => defineItem('acme:x', { status: z.string() })).toThrow(/may not redefine "status"/);
    expect(() => defineEvent('acme:y', { sequence_number: z.string() })).toThrow(/sequence_number/);
    expect(() => defineTool('acme:z', { param: { type: z.string() }, item: searchResult })).toThrow(/"type"/);
    expect(() => defineFields('ResponseResource', { priority: z.number() })).toThrow(/slug-prefixed/);
  });
  test('registry.validate checks with the extended schema by name (what the client calls)', () => {
    const item = { type: 'acme:search_result', id: 'sr_1', status: 'completed', query: 'q', hits: [] };
    expect(registry.validate('ItemField', item)).toMatchObject({ success: true });
    const bad = registry.validate('ItemField', { ...item, hits: [{ url: 'u', score: 'high' }] });
    expect(!bad.success && bad.issues[0]!.path).toBe('hits[0].score');
    expect(
      registry.validate('StreamingEvent', { type: 'acme:trace_event', sequence_number: 1, span: 1, ms: 2 }),
    ).toMatchObject({ success: false, issues: [{ path: 'span' }] });
  });
  test('a vendor item without id or status, or with a bad field, is rejected with its path', () => {
    const bad = validate(registry.schemas.ItemField, { type: 'acme:search_result', id: 'sr_1', query: 'q', hits: [] });
    expect(!bad.success && bad.issues[0]!.path).toBe('status');
    const badHit = validate(registry.schemas.ItemField, {
      type: 'acme:search_result',
      id: 'sr_1',
      status: 'completed',
      query: 'q',
      hits: [{ url: 'u', score: 'high' }],
    });
    expect(!badHit.success && badHit.issues[0]!.path).toBe('hits[0].score');
  });
});

describe('extended validators', () => {
  test('registered items, tools and fields validate beside the core; unknown vendor members stay opaque', () => {
    const body = {
      model: 'm',
      'acme:priority': 3,
      tools: [
        { type: 'function', name: 'f' },
        { type: 'acme:document_search', index: 'docs' },
        { type: 'other:tool', anything: true },
      ],
      input: [
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'acme:search_result', id: 'sr_1', status: 'completed', query: 'q', hits: [] },
      ],
    };
    expect(validate(registry.schemas.CreateResponseBody, body).success).toBe(true);
    expect(validate(registry.schemas.CreateResponseBody, { ...body, 'acme:priority': 12 }).success).toBe(false);
    expect(
      validate(registry.schemas.CreateResponseBody, { ...body, tools: [{ type: 'acme:document_search' }] }).success,
    ).toBe(false);
  });

  test('a stream with vendor items and events passes the registry checker and folds into the response', () => {
    const events: AnyStreamingEvent[] = [];
    const writer = createStreamWriter({ response: start(), onEvent: (e) => events.push(e) });
    writer.start();
    writer.emitVendorEvent({ type: 'acme:trace_event', span: 'search', ms: 12 });
    const item = writer.addItem({ type: 'acme:search_result', id: 'sr_1', query: 'weather', hits: [] });
    item.done({ hits: [{ url: 'https://example.test', score: 0.5 }] });
    writer.complete();
    const checker = registry.createStreamChecker();
    for (const event of events) checker.push(event);
    expect([...checker.violations, ...checker.end({ sawDone: true })]).toEqual([]);
    for (const event of events) expect(validate(registry.schemas.StreamingEvent, event).success, event.type).toBe(true);
    const accumulator = registry.createAccumulator();
    const traceIndex = events.findIndex((e) => e.type === 'acme:trace_event');
    for (const event of events.slice(0, traceIndex + 1)) accumulator.push(event);
    expect(accumulator.response?.metadata).toEqual({ 'acme:last_span': 'search' });
    // The terminal event's response is authoritative: folding stops there.
    for (const event of events.slice(traceIndex + 1)) accumulator.push(event);
    expect(accumulator.response?.output[0]).toEqual({
      type: 'acme:search_result',
      id: 'sr_1',
      query: 'weather',
      hits: [{ url: 'https://example.test', score: 0.5 }],
      status: 'completed',
    });
  });

  test('a registered vendor event with a bad body is reported by the checker', () => {
    const checker = registry.createStreamChecker();
    checker.push({ type: 'response.created', sequence_number: 0, response: start() });
    expect(checker.push({ type: 'acme:trace_event', sequence_number: 1, span: 5, ms: 1 }).map((v) => v.rule)).toEqual([
      'vendor-event-shape',
    ]);
  });

  test('property: registered vendor items and events round-trip byte for byte through validate and the accumulator', () => {
    const item = fc.record({
      type: fc.constant('acme:search_result'),
      id: fc.string({ minLength: 1 }),
      status: fc.constantFrom('in_progress', 'completed', 'incomplete'),
      query: fc.string(),
      hits: fc.array(fc.record({ url: fc.webUrl(), score: fc.double({ noNaN: true, noDefaultInfinity: true }) })),
      'acme:extra': fc.option(fc.jsonValue(), { nil: undefined }),
    });
    fc.assert(
      fc.property(item, fc.string(), (vendorItem, span) => {
        const clean = JSON.parse(JSON.stringify(vendorItem)) as Record<string, unknown>;
        const result = validate(registry.schemas.ItemField, clean);
        expect(result.success && JSON.stringify(result.data)).toBe(JSON.stringify(clean));
        const accumulator = registry.createAccumulator();
        accumulator.push({ type: 'response.created', sequence_number: 0, response: start() });
        accumulator.push({
          type: 'response.output_item.added',
          sequence_number: 1,
          output_index: 0,
          item: clean as never,
        });
        accumulator.push({ type: 'acme:trace_event', sequence_number: 2, span, ms: 1 });
        expect(JSON.stringify(accumulator.response!.output[0])).toBe(JSON.stringify(clean));
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});

test('the registry extends exactly unions the generator marks as open', async () => {
  const { OPEN_UNIONS } = await import('@openresponses/types');
  for (const name of ['ItemField', 'ItemParam', 'Tool', 'ResponsesToolParam', 'StreamingEvent'])
    expect(OPEN_UNIONS).toContain(name);
  expect(OPEN_UNIONS).not.toContain('ToolChoiceParam');
});

test('isUnknownItem and isUnknownEvent tell unknown members from core and registered ones', () => {
  expect(registry.isUnknownItem({ type: 'acme:search_result' })).toBe(false);
  expect(registry.isUnknownItem({ type: 'acme:document_search_call' })).toBe(false);
  expect(registry.isUnknownItem({ type: 'message' })).toBe(false);
  expect(registry.isUnknownItem({ type: 'acme:document_search' })).toBe(false);
  expect(registry.isUnknownItem({ type: 'other:thing' })).toBe(true);
  expect(registry.isUnknownEvent({ type: 'acme:trace_event' })).toBe(false);
  expect(registry.isUnknownEvent({ type: 'response.completed' })).toBe(false);
  expect(registry.isUnknownEvent({ type: 'acme:search_result' })).toBe(true);
});
