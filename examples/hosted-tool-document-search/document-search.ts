// A hosted vendor tool: the request declares { type: 'acme:document_search', index }, the server runs the
// search and returns an `acme:document_search_call` item with its results, then answers from them.
import { createRegistry, defineTool, defineItem } from '@openresponses/extensions';
import { lastUserText, type ModelPart, type ModelProvider, type ModelRequest } from '@openresponses/server';
import { z } from 'zod';

export const documentSearchCall = defineItem('acme:document_search_call', {
  query: z.string(),
  results: z.array(z.object({ title: z.string(), snippet: z.string() })),
});
export const documentSearch = defineTool('acme:document_search', {
  param: { index: z.string() },
  item: documentSearchCall,
});
export const registry = createRegistry({ tools: [documentSearch] });

const HANDBOOK: Record<string, Array<{ title: string; snippet: string }>> = {
  handbook: [
    { title: 'Leave policy', snippet: 'Employees get 25 days of paid leave a year.' },
    { title: 'Remote work', snippet: 'Remote work is allowed three days a week.' },
  ],
};

type SearchCall = z.output<typeof documentSearchCall.schema>;

/** A provider for the model `acme-search`: runs the hosted tool, then answers from its results (also on a follow-up). */
export class DocumentSearchModel implements ModelProvider {
  readonly name = 'acme-search';
  readonly contextWindow = 100_000;
  supports(model: string) {
    return model === 'acme-search';
  }
  async *generate(request: ModelRequest): AsyncIterable<ModelPart> {
    const question = lastUserText(request.items);
    const earlier = request.items.filter(
      (item) => (item as { type: string }).type === 'acme:document_search_call',
    ) as unknown as SearchCall[];
    const tool = request.hostedTools.find((t) => t.type === 'acme:document_search') as { index: string } | undefined;
    if (tool && earlier.length === 0) {
      const words = question
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 3);
      const results = (HANDBOOK[tool.index] ?? []).filter((doc) =>
        words.some((w) => `${doc.title} ${doc.snippet}`.toLowerCase().includes(w)),
      );
      const call: SearchCall = {
        type: 'acme:document_search_call',
        id: `dsc_${crypto.randomUUID().slice(0, 8)}`,
        status: 'completed',
        query: question,
        results,
      };
      yield { type: 'item', item: call };
      earlier.push(call);
    }
    const found = earlier.flatMap((call) => call.results);
    const answer = found.length
      ? `From the documents: ${found.map((r) => r.snippet).join(' ')}`
      : 'The documents say nothing about that.';
    yield { type: 'text-start', id: 'answer' };
    yield { type: 'text-delta', id: 'answer', delta: answer };
    yield { type: 'text-end', id: 'answer' };
    yield { type: 'finish', reason: 'stop', usage: { inputTokens: question.length, outputTokens: answer.length } };
  }
}
