// A consumer with a three-item vendor registry that narrows its items: what the registry type-check
// benchmark compiles.
import { createRegistry, defineItem } from '@openresponses/extensions';
import * as z from 'zod/v4';

const registry = createRegistry({
  items: [
    defineItem('acme:search_result', { query: z.string(), hits: z.array(z.string()) }),
    defineItem('acme:citation', { url: z.string(), title: z.string().optional() }),
    defineItem('acme:note', { text: z.string(), pinned: z.boolean() }),
  ],
});

export type Item = z.output<typeof registry.schemas.ItemField>;

export function describe(item: Item): string {
  if (registry.isUnknownItem(item)) return `unknown ${item.type}`;
  switch (item.type) {
    case 'acme:search_result':
      return `${item.query}: ${item.hits.length} hits`;
    case 'acme:citation':
      return item.title ?? item.url;
    case 'acme:note':
      return item.pinned ? `pinned: ${item.text}` : item.text;
    case 'message':
      return item.role;
    default:
      return item.type;
  }
}

export const parsed = registry.schemas.ResponseResource.parse(JSON.parse('{}')).output.map(describe);
