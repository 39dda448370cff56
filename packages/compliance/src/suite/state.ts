// State across HTTP turns: previous_response_id (context, order, recall, instructions), store, retrieval,
// truncation.
import type { ResponseResource } from '@openresponses/types';
import { expect, expectError, textOf, type ComplianceTest } from './context.js';
import { calls, user, weatherTool, forcedWeather, toolOutput, longInput } from './helpers.js';

export const STATE_TESTS: ComplianceTest[] = [
  {
    id: 'previous-response-id',
    description: 'HTTP previous_response_id continues a stored response',
    transport: 'http',
    async run(t) {
      const first = await t.create({ input: 'Hello.' });
      const second = await t.create({ input: 'And again.', previous_response_id: first.id });
      expect(
        second.previous_response_id === first.id,
        'previous-response',
        `previous_response_id echoed as ${second.previous_response_id}`,
      );
    },
  },
  {
    id: 'previous-response-recall',
    description: 'A continuation recalls a fact across three turns of previous_response_id',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const one = await t.create({ input: 'My name is Zelda. Please remember it.' });
      const two = await t.create({ input: 'I like maps.', previous_response_id: one.id });
      const three = await t.create({ input: 'What is my name?', previous_response_id: two.id });
      expect(
        /zelda/i.test(textOf(three)),
        'recall',
        `the answer does not mention the name: ${JSON.stringify(textOf(three)).slice(0, 120)}`,
      );
    },
  },
  {
    id: 'store-false-not-retrievable',
    description: 'A response created with store: false cannot be retrieved or continued over HTTP',
    transport: 'http',
    async run(t) {
      const response = await t.create({ input: 'Do not keep this.', store: false });
      const got = await t.request('GET', `/responses/${response.id}`);
      expect(got.status === 404, 'store-false', `GET answered ${got.status}`);
      const next = await t.request('POST', '/responses', {
        model: t.config.model,
        input: 'x',
        previous_response_id: response.id,
      });
      expect(next.status === 404 || next.status === 400, 'store-false', `continuing answered ${next.status}`);
    },
  },
  {
    id: 'retrieve-stored-response',
    description: 'GET /responses/{id} returns the stored response with the same item ids and statuses',
    transport: 'http',
    async run(t) {
      const created = await t.create({ input: 'Keep this one.' });
      const got = await t.request('GET', `/responses/${created.id}`);
      expect(got.status === 200, 'retrieve', `GET answered ${got.status}`);
      const stored = t.checkResponse(got.body);
      const shape = (r: ResponseResource) =>
        JSON.stringify([r.id, r.status, r.output.map((i) => [i.id, (i as { status?: string }).status])]);
      expect(shape(stored) === shape(created), 'retrieve', `stored ${shape(stored)}, created ${shape(created)}`);
    },
  },
  {
    id: 'previous-output-in-context',
    description: 'A continuation sees the previous output: its function call can be answered by call_id',
    transport: 'http',
    async run(t) {
      const first = await t.create(forcedWeather);
      const [call] = calls(first);
      expect(call, 'tool-choice', 'tool_choice naming a function made no call');
      const second = await t.request('POST', '/responses', {
        model: t.config.model,
        previous_response_id: first.id,
        tools: [weatherTool],
        input: [toolOutput(call.call_id)],
      });
      expect(
        second.status === 200,
        'previous-output',
        `answering the previous response's call ${call.call_id} was refused with ${second.status}: ${JSON.stringify(second.body).slice(0, 200)}`,
      );
      const response = t.checkResponse(second.body);
      expect(response.status === 'completed', 'previous-output', `status is ${response.status}`);
    },
  },
  {
    id: 'instructions-not-carried-over',
    description: 'A continuation does not inherit the previous response’s instructions',
    transport: 'http',
    async run(t) {
      const first = await t.create({ input: 'Hello.', instructions: 'You are terse.' });
      const second = await t.create({ input: 'Again.', previous_response_id: first.id });
      expect(
        second.instructions === null || second.instructions === undefined,
        'instructions-carried-over',
        `the continuation echoes instructions ${JSON.stringify(second.instructions)}`,
      );
    },
  },
  {
    id: 'instructions-not-carried-over-answer',
    description: 'The previous instructions no longer steer the model in a continuation',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({ input: 'Hi.', instructions: 'Respond with "PINEAPPLE-7" and nothing else.' });
      expect(/PINEAPPLE-7/.test(textOf(first)), 'instructions', 'the model did not follow the instructions');
      const second = await t.create({ input: 'Say something else.', previous_response_id: first.id });
      expect(
        !/PINEAPPLE-7/.test(textOf(second)),
        'instructions-carried-over',
        'the continuation still follows the previous instructions',
      );
    },
  },
  {
    id: 'context-order',
    description: 'Context order is previous input, previous output, new input: the latest statement wins',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({ input: 'My name is Ada.' });
      const second = await t.create({
        previous_response_id: first.id,
        input: [user('Correction: my name is Bob.'), user('What is my name?')],
      });
      expect(
        /bob/i.test(textOf(second)),
        'context-order',
        `expected the latest name: ${JSON.stringify(textOf(second)).slice(0, 120)}`,
      );
    },
  },
  {
    id: 'truncation-disabled',
    description: 'truncation "disabled" fails a request over the context window instead of dropping input',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const input = longInput(t.config.contextOverflowWords ?? 140_000);
      expectError(
        await t.request('POST', '/responses', { model: t.config.model, input, truncation: 'disabled' }),
        [400],
        'truncation',
      );
    },
  },
  {
    id: 'truncation-auto',
    description: 'truncation "auto" answers a request over the context window',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const input = longInput(t.config.contextOverflowWords ?? 140_000);
      const response = await t.create({ input: [user(input), user('Say hello.')], truncation: 'auto' });
      expect(response.truncation === 'auto', 'truncation', `truncation echoed as ${response.truncation}`);
    },
  },
];
