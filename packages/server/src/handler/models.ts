import { listedModelNames } from '../models/model-list.js';
import type { ModelProvider } from '../models/provider.js';

/** `GET /v1/models`: every model name the providers can route, first provider first, each once. */
export async function listModels(providers: readonly ModelProvider[]) {
  const seen = new Set<string>();
  const data: Array<{ id: string; object: 'model'; created: number; owned_by: string }> = [];
  const lists = await Promise.all(providers.map(listedModelNames));
  for (const [index, names] of lists.entries())
    for (const id of names) {
      if (seen.has(id)) continue;
      seen.add(id);
      data.push({ id, object: 'model', created: 0, owned_by: providers[index]!.name });
    }
  return { object: 'list' as const, data };
}
