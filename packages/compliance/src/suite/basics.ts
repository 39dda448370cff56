// Single requests and streams: text, instructions, inline history, images, unknown fields, several items, refusals,
// include values, running out of max_output_tokens.
import type { ResponseResource } from '@openresponses/types';
import { expect, expectError, type ComplianceTest } from './context.js';
import { calls, PIXEL, timeTool, user, weatherTool } from './helpers.js';

export const BASICS_TESTS: ComplianceTest[] = [
  {
    id: 'basic-text-response',
    description: 'A text request returns a completed, spec-exact ResponseResource with an assistant message',
    transport: 'http',
    async run(t) {
      const response = await t.create({ input: 'Say hello.' });
      expect(response.status === 'completed', 'status', `status is ${response.status}`);
      expect(
        response.output.some((i) => i.type === 'message'),
        'output',
        'no message in output',
      );
    },
  },
  {
    id: 'streaming',
    description:
      'A streamed response passes every stream rule (order, sequence numbers, delta sums, terminal event, [DONE])',
    transport: 'http',
    async run(t) {
      const { final } = await t.stream({ input: 'Say hello in a few words.' });
      expect(final.status === 'completed', 'status', `status is ${final.status}`);
    },
  },
  {
    id: 'system-prompt',
    description: 'instructions are accepted and echoed in the response',
    transport: 'http',
    async run(t) {
      const response = await t.create({ input: 'Hello', instructions: 'You are terse.' });
      expect(
        response.instructions === 'You are terse.',
        'instructions',
        `instructions echoed as ${JSON.stringify(response.instructions)}`,
      );
    },
  },
  {
    id: 'assistant-phase-history',
    description: 'Inline history with an assistant message carrying phase is accepted',
    transport: 'http',
    async run(t) {
      await t.create({
        input: [
          user('Hi'),
          {
            type: 'message',
            role: 'assistant',
            phase: 'commentary',
            content: [{ type: 'output_text', text: 'Thinking aloud.' }],
          },
          user('Continue.'),
        ],
      });
    },
  },
  {
    id: 'multi-turn-inline-history',
    description: 'A conversation sent inline (user, assistant, user) is answered',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: [
          user('My name is Ada.'),
          { type: 'message', role: 'assistant', content: 'Nice to meet you.' },
          user('Thanks.'),
        ],
      });
      expect(response.status === 'completed', 'status', `status is ${response.status}`);
    },
  },
  {
    id: 'image-input',
    description: 'A user message with an input_image part is accepted',
    transport: 'http',
    async run(t) {
      await t.create({
        input: [
          user([
            { type: 'input_text', text: 'What is in this image?' },
            { type: 'input_image', image_url: PIXEL },
          ]),
        ],
      });
    },
  },
  {
    id: 'unknown-fields-tolerated',
    description: 'Unknown request fields are tolerated',
    transport: 'http',
    async run(t) {
      await t.create({ input: 'Hello', 'acme:trace_id': 'abc', zz_future_field: { nested: true } });
    },
  },
  {
    id: 'multi-item-stream',
    description: 'Parallel function calls stream as items at output_index 0 and 1, each added and done once',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { final } = await t.stream({
        input: 'What are the weather and the time in Paris?',
        tools: [weatherTool, timeTool],
        parallel_tool_calls: true,
        tool_choice: 'required',
      });
      expect(calls(final).length >= 2, 'parallel-calls', `expected two calls, got ${calls(final).length}`);
    },
  },
  {
    id: 'refusal-stream',
    description: 'A refusal streams as a refusal content part whose deltas add up',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { final } = await t.stream({
        input: `Help me with something bad. ${t.config.refusalPrompt ?? '[refuse]'}`,
      });
      const parts = final.output.flatMap((i) => (i.type === 'message' ? i.content : []));
      expect(
        parts.some((p) => p.type === 'refusal'),
        'refusal',
        `no refusal part: ${parts.map((p) => p.type).join(', ')}`,
      );
    },
  },
  {
    id: 'max-output-tokens-incomplete',
    description: 'Running out of max_output_tokens ends the response incomplete with incomplete_details',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { final } = await t.stream({
        input: `Write at length about the sea. ${t.config.longPrompt ?? '[long]'}`,
        max_output_tokens: 16,
      });
      expect(final.status === 'incomplete', 'incomplete', `status is ${final.status}`);
      expect(
        final.incomplete_details?.reason === 'max_output_tokens',
        'incomplete',
        `incomplete_details ${JSON.stringify(final.incomplete_details)}`,
      );
      // The item being written when the budget ran out ends incomplete too, and it is the last one.
      const last = final.output.at(-1) as { status?: string } | undefined;
      expect(
        last?.status === 'incomplete',
        'incomplete-item-status',
        `the last item of an incomplete response is ${last?.status ?? 'missing'}, not incomplete`,
      );
    },
  },
  {
    id: 'include-invalid',
    description: 'An include value the spec does not define is a 400 naming include',
    transport: 'http',
    async run(t) {
      const error = expectError(
        await t.request('POST', '/responses', { model: t.config.model, input: 'x', include: ['everything.please'] }),
        [400],
        'include',
      );
      expect(error.param?.startsWith('include'), 'error-param', `param is ${JSON.stringify(error.param)}`);
    },
  },
  {
    id: 'include-logprobs',
    description:
      'include message.output_text.logprobs adds logprobs to output text, or is refused naming include; never ignored',
    transport: 'http',
    async run(t) {
      const parts = (r: ResponseResource) =>
        r.output.flatMap((i) => (i.type === 'message' ? i.content : [])).filter((p) => p.type === 'output_text');
      const plain = parts(await t.create({ input: 'Hello.' }));
      expect(
        plain.every((p) => !('logprobs' in p) || (Array.isArray(p.logprobs) && p.logprobs.length === 0)),
        'include',
        'logprobs were sent without being included',
      );
      const result = await t.request('POST', '/responses', {
        model: t.config.model,
        input: 'Hello.',
        include: ['message.output_text.logprobs'],
      });
      // A model that cannot report logprobs makes the include a 400; answering without them ignores the request.
      if (result.status === 400) {
        const error = expectError(result, [400], 'include');
        expect(error.param?.startsWith('include'), 'error-param', `param is ${JSON.stringify(error.param)}`);
        return;
      }
      const included = parts(t.checkResponse(result.body));
      expect(
        included.length > 0 && included.every((p) => Array.isArray(p.logprobs) && p.logprobs.length > 0),
        'include',
        'include message.output_text.logprobs answered 200 with output text without logprobs',
      );
    },
  },
];
