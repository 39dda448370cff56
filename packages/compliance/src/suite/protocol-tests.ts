// Protocol rules beyond single streams: context across turns, tool outputs, truncation, include, reasoning and
// refusal streams, and the WebSocket rules. Most need no cooperation from the model (a forced tool call is a
// MUST of tool_choice); the rest are marked modelDependent.
import type { ResponseResource } from '@openresponses/types';
import { Skip } from '../types.js';
import { checkSocketTurn, endsTurn, expect, expectError, type HttpResult, type TestSocket, textOf } from './context.js';
import { calls, timeTool, user, weatherTool } from './helpers.js';
import type { ComplianceTest } from './tests.js';

const forcedWeather = {
  input: 'What is the weather in Paris?',
  tools: [weatherTool],
  tool_choice: { type: 'function', name: 'get_weather' },
};
const toolOutput = (call_id: string) => ({ type: 'function_call_output', call_id, output: '{"celsius":21}' });
const responseOf = (messages: Array<Record<string, unknown>>) =>
  (messages.at(-1) as { response?: ResponseResource }).response;
const errorOf = (messages: Array<Record<string, unknown>>) =>
  messages.at(-1) as { type: string; status?: number; error?: { code?: string; type?: string } };
/** A `store: false` socket turn forced to call the weather tool, and that call: where continuation tests start. */
async function storeFalseToolCall(socket: TestSocket) {
  const first = responseOf(await socket.turn({ ...forcedWeather, store: false }));
  const [call] = first ? calls(first) : [];
  expect(call, 'tool-choice', 'tool_choice naming a function made no call');
  return { first: first!, call };
}
/** Content the server did not issue (or issued and saw altered) is a 400 naming the encrypted_content. */
const expectRefusedContent = (result: HttpResult) => {
  const error = expectError(result, [400], 'encrypted-content');
  expect(
    error.param?.includes('encrypted_content'),
    'error-param',
    `param is ${JSON.stringify(error.param)}, expected the encrypted_content`,
  );
};
const longInput = (words: number) => Array.from({ length: words }, (_, i) => `w${i % 1000}`).join(' ');

export const PROTOCOL_TESTS: ComplianceTest[] = [
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
    id: 'orphan-tool-output',
    description: 'A function_call_output whose call_id matches no function_call in the context is a 400',
    transport: 'http',
    async run(t) {
      const alone = expectError(
        await t.request('POST', '/responses', { model: t.config.model, input: [toolOutput('call_nobody_made')] }),
        [400],
        'orphan-tool-output',
      );
      expect(
        alone.type === 'invalid_request' || alone.type === 'invalid_request_error',
        'orphan-tool-output',
        `error type ${alone.type}`,
      );
      expect(
        typeof alone.param === 'string' && alone.param.startsWith('input'),
        'error-param',
        `param is ${JSON.stringify(alone.param)}, expected the input item`,
      );
      const first = await t.create(forcedWeather);
      expectError(
        await t.request('POST', '/responses', {
          model: t.config.model,
          previous_response_id: first.id,
          tools: [weatherTool],
          input: [toolOutput('call_nobody_made')],
        }),
        [400],
        'orphan-tool-output',
      );
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
  {
    id: 'reasoning-setting-echoed',
    description: 'The response reports the reasoning configuration the request set',
    transport: 'http',
    async run(t) {
      const response = await t.create({ input: 'Hello.', reasoning: { effort: 'low', summary: 'auto' } });
      expect(
        response.reasoning?.effort === 'low',
        'reasoning',
        `reasoning echoed as ${JSON.stringify(response.reasoning)}`,
      );
    },
  },
  {
    id: 'reasoning-stream',
    description:
      'With reasoning on, a reasoning item then a message stream at output_index 0 and 1, summary deltas adding up',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { final } = await t.stream({
        input: 'Think it through: what is two plus two?',
        reasoning: { effort: 'low', summary: 'auto' },
      });
      const types = final.output.map((i) => i.type);
      expect(
        types[0] === 'reasoning' && types.includes('message'),
        'reasoning',
        `output is ${types.join(', ')}, expected reasoning then a message`,
      );
      const reasoning = final.output[0] as { encrypted_content?: string | null };
      expect(
        reasoning.encrypted_content === undefined || reasoning.encrypted_content === null,
        'include',
        'encrypted_content was sent without include: ["reasoning.encrypted_content"]',
      );
    },
  },
  {
    id: 'include-reasoning-encrypted-content',
    description:
      'include reasoning.encrypted_content returns it; sent back it is accepted, altered it is a 400 naming it',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({
        input: 'Think it through: what is two plus two?',
        reasoning: { effort: 'low' },
        include: ['reasoning.encrypted_content'],
      });
      const reasoning = first.output.find((i) => i.type === 'reasoning') as
        | (Record<string, unknown> & { encrypted_content?: string | null })
        | undefined;
      expect(reasoning, 'reasoning', 'no reasoning item');
      expect(
        typeof reasoning.encrypted_content === 'string' && reasoning.encrypted_content.length > 0,
        'include',
        'include reasoning.encrypted_content returned no encrypted_content',
      );
      const replay = (encrypted_content: string) => ({
        model: t.config.model,
        input: [
          user('Think it through: what is two plus two?'),
          { type: 'reasoning', id: reasoning.id, summary: reasoning.summary, encrypted_content },
          user('And three plus three?'),
        ],
      });
      const back = await t.request('POST', '/responses', replay(reasoning.encrypted_content!));
      expect(back.status === 200, 'encrypted-content', `replaying the reasoning item answered ${back.status}`);
      const text = reasoning.encrypted_content!;
      const middle = Math.floor(text.length / 2);
      const altered = `${text.slice(0, middle)}${text[middle] === 'A' ? 'B' : 'A'}${text.slice(middle + 1)}`;
      expectRefusedContent(await t.request('POST', '/responses', replay(altered)));
    },
  },
  {
    id: 'encrypted-content-garbage',
    description: 'A reasoning item sent back with encrypted_content the server never issued is a 400 naming it',
    transport: 'http',
    async run(t) {
      expectRefusedContent(
        await t.request('POST', '/responses', {
          model: t.config.model,
          input: [
            user('Hello.'),
            { type: 'reasoning', id: 'rs_forged', summary: [], encrypted_content: 'forged-by-the-client' },
            user('Continue.'),
          ],
        }),
      );
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
    id: 'ws-one-in-flight',
    description: 'WebSocket: two response.create messages sent at once are answered one after the other',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        socket.send({ input: `Tell me a story. ${t.config.slowPrompt ?? '[slow]'}`, store: false });
        socket.send({ input: 'Quick one.', store: false });
        const messages = await socket.until(2, 30_000);
        const firstEnd = messages.findIndex(endsTurn);
        const first = messages.slice(0, firstEnd + 1);
        const second = messages.slice(firstEnd + 1);
        const created = (group: typeof messages) => group.filter((m) => m.type === 'response.created').length;
        expect(
          created(first) === 1 && created(second) === 1,
          'ws-one-in-flight',
          'the two turns’ events are interleaved: responses were in flight at the same time',
        );
        checkSocketTurn(first);
        checkSocketTurn(second);
      });
    },
  },
  {
    id: 'ws-forbidden-fields',
    description: 'WebSocket: response.create carrying stream or background is refused with an error envelope',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        for (const field of ['stream', 'background'] as const) {
          const messages = await socket.turn({ input: 'x', [field]: true });
          const last = errorOf(messages);
          expect(
            last.type === 'error' && last.status === 400,
            'ws-forbidden-fields',
            `${field} was accepted: ${JSON.stringify(last).slice(0, 160)}`,
          );
        }
      });
    },
  },
  {
    id: 'ws-store-false-reconnect',
    description: 'WebSocket: a store: false response cannot be continued from another connection',
    transport: 'websocket',
    async run(t) {
      const id = await t.withSocket(
        async (socket) => responseOf(await socket.turn({ input: 'Hi.', store: false }))?.id,
      );
      expect(id, 'websocket', 'the first turn did not complete');
      await t.withSocket(async (socket) => {
        const last = errorOf(await socket.turn({ input: 'Again.', store: false, previous_response_id: id }));
        expect(
          last.type === 'error' && last.error?.code === 'previous_response_not_found',
          'ws-store-false',
          `a store: false response was continued on a new connection: ${JSON.stringify(last).slice(0, 160)}`,
        );
      });
    },
  },
  {
    id: 'ws-tool-output-continuation',
    description: 'WebSocket: a store: false turn answering the previous turn’s function call completes',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const { first, call } = await storeFalseToolCall(socket);
        const second = await socket.turn({
          store: false,
          previous_response_id: first.id,
          tools: [weatherTool],
          input: [toolOutput(call.call_id)],
        });
        expect(
          second.at(-1)?.type === 'response.completed',
          'previous-output',
          `the continuation ended with ${JSON.stringify(second.at(-1)).slice(0, 160)}`,
        );
      });
    },
  },
  {
    id: 'ws-orphan-tool-output-evicts',
    description:
      'WebSocket: an orphan function_call_output fails the store: false continuation and evicts the response it continued',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const { first, call } = await storeFalseToolCall(socket);
        const orphan = errorOf(
          await socket.turn({
            store: false,
            previous_response_id: first.id,
            tools: [weatherTool],
            input: [toolOutput('call_nobody_made')],
          }),
        );
        expect(
          orphan.type === 'error' && orphan.status === 400,
          'orphan-tool-output',
          `an orphan tool output was answered: ${JSON.stringify(orphan).slice(0, 160)}`,
        );
        const after = errorOf(
          await socket.turn({
            store: false,
            previous_response_id: first.id,
            tools: [weatherTool],
            input: [toolOutput(call.call_id)],
          }),
        );
        expect(
          after.type === 'error' && after.error?.code === 'previous_response_not_found',
          'websocket-eviction',
          `the failed continuation's previous response was not evicted: ${JSON.stringify(after).slice(0, 160)}`,
        );
      });
    },
  },
  {
    id: 'ws-connection-limit',
    description: 'WebSocket: at the connection limit the server sends websocket_connection_limit_reached',
    transport: 'websocket',
    async run(t) {
      const limit = t.config.webSocketConnectionLimitMs;
      if (limit === undefined) throw new Skip('set webSocketConnectionLimitMs to wait for the connection limit');
      await t.withSocket(async (socket) => {
        const last = errorOf(await socket.until(1, limit + 10_000));
        expect(
          last.type === 'error' &&
            typeof last.status === 'number' &&
            last.error?.code === 'websocket_connection_limit_reached',
          'ws-connection-limit',
          `at the limit the server sent ${JSON.stringify(last).slice(0, 160)}`,
        );
      });
    },
  },
];
