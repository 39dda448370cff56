// POST /responses/compact: the compaction window and its refusals.
import { expect, expectError, type ComplianceTest } from './context.js';
import { user } from './helpers.js';

export const COMPACTION_TESTS: ComplianceTest[] = [
  {
    id: 'compaction',
    description: 'POST /responses/compact returns a response.compaction window ending in a compaction item',
    transport: 'http',
    async run(t) {
      const result = await t.request('POST', '/responses/compact', {
        model: t.config.model,
        input: [user('My name is Ada.'), { type: 'message', role: 'assistant', content: 'Hello Ada.' }],
      });
      expect(result.status === 200, 'status', `compact answered ${result.status}`);
      const body = result.body as { object?: string; output?: Array<{ type: string }> };
      expect(body.object === 'response.compaction', 'compaction', `object is ${body.object}`);
      expect(body.output?.at(-1)?.type === 'compaction', 'compaction', 'no compaction item at the end of output');
      const unmarked = body.output.findIndex((item) => typeof (item as { status?: unknown }).status !== 'string');
      expect(unmarked < 0, 'item-status', `compacted output[${unmarked}] has no status`);
      await t.create({ input: [...body.output, user('Continue.')] });
    },
  },
  {
    id: 'compaction-without-model',
    description: 'Compaction without model is a 400 naming model',
    transport: 'http',
    async run(t) {
      expectError(await t.request('POST', '/responses/compact', { input: 'hi' }), [400], 'compaction-400', 'model');
    },
  },
];
