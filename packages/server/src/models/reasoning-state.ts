import type { ItemField } from '@openresponses/types';
import type { ModelRequest } from './provider.js';

/**
 * The state each reasoning item of the context carries sealed in its `encrypted_content`, opened and checked
 * with a family's `schema`; items whose state is not that family's (another family's, or none) have no entry
 * and are left out upstream.
 */
export async function reasoningStates<T>(
  request: ModelRequest,
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
): Promise<Map<ItemField, T> | undefined> {
  let states: Map<ItemField, T> | undefined;
  for (const item of request.items) {
    const sealed = (item as { encrypted_content?: unknown }).encrypted_content;
    if (item.type !== 'reasoning' || typeof sealed !== 'string' || !request.openReasoning) continue;
    const state = schema.safeParse(await request.openReasoning(sealed));
    if (state.success) (states ??= new Map()).set(item, state.data);
  }
  return states;
}
