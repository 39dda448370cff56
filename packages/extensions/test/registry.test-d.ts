import { expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { createRegistry, defineEvent, defineItem, defineTool } from '../src/index.js';

const registry = createRegistry({
  items: [defineItem('acme:search_result', { hits: z.array(z.string()) })],
  events: [defineEvent('acme:trace_event', { span: z.string() })],
  tools: [
    defineTool('acme:document_search', {
      param: { index: z.string() },
      item: defineItem('acme:document_search_call', { results: z.array(z.string()) }),
    }),
  ],
});

test('extended unions include the vendor members, narrowed by type', () => {
  type Item = z.output<typeof registry.schemas.ItemField>;
  expectTypeOf<Extract<Item, { type: 'acme:search_result' }>['hits']>().toEqualTypeOf<string[]>();
  expectTypeOf<Extract<Item, { type: 'message' }>['role']>().toBeString();
  expectTypeOf<Extract<Item, { type: 'acme:document_search_call' }>['results']>().toEqualTypeOf<string[]>();
  type Event = z.output<typeof registry.schemas.StreamingEvent>;
  expectTypeOf<Extract<Event, { type: 'acme:trace_event' }>['span']>().toEqualTypeOf<string>();
  type Tool = z.output<typeof registry.schemas.ResponsesToolParam>;
  expectTypeOf<Extract<Tool, { type: 'acme:document_search' }>['index']>().toEqualTypeOf<string>();
});

test("the generator's ExtendedUnion helper agrees with the registry's inferred item type", () => {
  type Vendor = z.output<
    ReturnType<typeof defineItem<'acme:search_result', { hits: z.ZodArray<z.ZodString> }>>['schema']
  >;
  type FromGenerator = import('@openresponses/types').ExtendedUnion<'ItemField', Vendor>;
  expectTypeOf<Extract<FromGenerator, { type: 'acme:search_result' }>>().toEqualTypeOf<Vendor>();
  expectTypeOf<
    Extract<z.output<typeof registry.schemas.ItemField>, { type: 'acme:search_result' }>['hits']
  >().toEqualTypeOf<Vendor['hits']>();
});

test('on registry unions, comparing type with a vendor literal narrows to the registered member', () => {
  type Item = z.output<typeof registry.schemas.ItemField>;
  const query = (item: Item) => (item.type === 'acme:document_search_call' ? item.results : undefined);
  expectTypeOf(query).returns.toEqualTypeOf<string[] | undefined>();
  const role = (item: Item) => (item.type === 'message' ? item.role : undefined);
  expectTypeOf(role).returns.toEqualTypeOf<'user' | 'assistant' | 'system' | 'developer' | undefined>();
  type Event = z.output<typeof registry.schemas.StreamingEvent>;
  const span = (event: Event) => (event.type === 'acme:trace_event' ? event.span : undefined);
  expectTypeOf(span).returns.toEqualTypeOf<string | undefined>();
});

test('unknown members are reached through the explicit guard, and only through it', () => {
  type Item = z.output<typeof registry.schemas.ItemField>;
  const unknownOnly = (item: Item) => (registry.isUnknownItem(item) ? item : undefined);
  expectTypeOf(unknownOnly).returns.toEqualTypeOf<import('@openresponses/types').UnknownMember | undefined>();
  // Narrowing by a vendor literal never yields the unknown member...
  const vendor = (item: Item) => (item.type === 'acme:search_result' ? item : undefined);
  expectTypeOf(vendor).returns.not.toMatchTypeOf<import('@openresponses/types').UnknownMember | undefined>();
  // ...while the guard's other branch keeps every known and registered member.
  const known = (item: Item) => (registry.isUnknownItem(item) ? undefined : item.type);
  expectTypeOf<'acme:search_result' | 'message'>().toMatchTypeOf<ReturnType<typeof known>>();
});
