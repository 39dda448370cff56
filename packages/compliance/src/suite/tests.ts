import { Skip } from '../types.js';
import { expect, expectError, textOf, type TestContext } from './context.js';
import { calls, PIXEL, timeTool, user, weatherTool } from './helpers.js';
import { PROTOCOL_TESTS } from './protocol-tests.js';

export interface ComplianceTest {
  /** Stable id, used by --filter and in reports. */
  id: string;
  description: string;
  transport: 'http' | 'websocket';
  /** Needs the model to cooperate (recall, following a prompt); skipped with skipModelDependent. */
  modelDependent?: boolean;
  run(context: TestContext): Promise<void>;
}

export const COMPLIANCE_TESTS: ComplianceTest[] = [
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
    id: 'tool-calling',
    description: 'tool_choice "required" yields a function_call with JSON arguments, streamed correctly',
    transport: 'http',
    async run(t) {
      const { final } = await t.stream({
        input: 'What is the weather in Paris?',
        tools: [weatherTool],
        tool_choice: 'required',
      });
      const [call] = calls(final);
      expect(call, 'tool-call', 'no function_call in output');
      expect(call.name === 'get_weather', 'tool-call', `called ${call.name}`);
      JSON.parse(call.arguments);
    },
  },
  {
    id: 'tool-choice-none',
    description: 'tool_choice "none" makes no tool call',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'What is the weather in Paris? Use get_weather.',
        tools: [weatherTool],
        tool_choice: 'none',
      });
      expect(calls(response).length === 0, 'tool-choice', 'a tool was called with tool_choice none');
    },
  },
  {
    id: 'tool-choice-specific',
    description: 'tool_choice naming a function calls exactly that function',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'What time is it in Paris?',
        tools: [weatherTool, timeTool],
        tool_choice: { type: 'function', name: 'get_weather' },
      });
      expect(
        calls(response).length > 0 && calls(response).every((c) => c.name === 'get_weather'),
        'tool-choice',
        `calls: ${
          calls(response)
            .map((c) => c.name)
            .join(', ') || 'none'
        }`,
      );
    },
  },
  {
    id: 'allowed-tools',
    description: 'allowed_tools is enforced: only listed tools are called',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'Get the weather and the time in Paris.',
        tools: [weatherTool, timeTool],
        tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] },
      });
      const names = calls(response).map((c) => c.name);
      expect(
        names.length > 0 && names.every((n) => n === 'get_time'),
        'allowed-tools',
        `calls: ${names.join(', ') || 'none'}`,
      );
    },
  },
  {
    id: 'function-call-output-roundtrip',
    description: 'Parallel calls answered with function_call_output items in one follow-up complete the turn',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({
        input: 'What are the weather and the time in Paris?',
        tools: [weatherTool, timeTool],
      });
      const made = calls(first);
      expect(made.length >= 2, 'parallel-calls', `expected two calls, got ${made.length}`);
      const second = await t.create({
        previous_response_id: first.id,
        tools: [weatherTool, timeTool],
        input: made.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: '{"ok":true}' })),
      });
      expect(
        second.status === 'completed' && calls(second).length === 0,
        'roundtrip',
        'the follow-up did not complete with an answer',
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
    id: 'error-400-param',
    description: 'An invalid field is a 400 spec error naming its param',
    transport: 'http',
    async run(t) {
      expectError(
        await t.request('POST', '/responses', { model: t.config.model, input: 'x', temperature: 'warm' }),
        [400],
        'error-400',
        'temperature',
      );
    },
  },
  {
    id: 'error-401',
    description: 'A wrong API key is a 401 spec error',
    transport: 'http',
    async run(t) {
      if (!t.config.apiKey) throw new Skip('no API key configured');
      expectError(
        await t.request(
          'POST',
          '/responses',
          { model: t.config.model, input: 'x' },
          { authorization: 'Bearer definitely-wrong' },
        ),
        [401],
        'error-401',
      );
    },
  },
  {
    id: 'error-404-previous-response',
    description: 'An unknown previous_response_id is a spec error with code previous_response_not_found',
    transport: 'http',
    async run(t) {
      const error = expectError(
        await t.request('POST', '/responses', {
          model: t.config.model,
          input: 'x',
          previous_response_id: 'resp_does_not_exist',
        }),
        [400, 404],
        'error-404',
      );
      expect(error.code === 'previous_response_not_found', 'error-404', `code is ${error.code}`);
    },
  },
  {
    id: 'stream-error-then-failed',
    description: 'A failure mid-stream is an error event followed by response.failed and [DONE]',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { events } = await t.stream({ input: `Please fail. ${t.config.failurePrompt ?? '[fail]'}` });
      expect(
        events.some((e) => e.type === 'error'),
        'error-then-failed',
        'no error event: the failure was swallowed',
      );
      expect(
        events.at(-1)?.type === 'response.failed',
        'error-then-failed',
        `the stream ended with ${events.at(-1)?.type}`,
      );
    },
  },
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
  {
    id: 'ws-single-turn',
    description: 'WebSocket: a response.create turn streams the same events as SSE, passing the stream rules',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const messages = await socket.turn({ input: 'Hello over WebSocket.' });
        expect(
          messages.at(-1)?.type === 'response.completed',
          'websocket',
          `the turn ended with ${JSON.stringify(messages.at(-1)).slice(0, 120)}`,
        );
      });
    },
  },
  {
    id: 'ws-sequential-store-false',
    description: 'WebSocket: sequential turns continue a store: false response on the same socket',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const one = await socket.turn({ input: 'Hello.', store: false });
        const id = (one.at(-1) as { response: { id: string } }).response.id;
        const two = await socket.turn({ input: 'Again.', store: false, previous_response_id: id });
        expect(
          two.at(-1)?.type === 'response.completed',
          'websocket',
          `the continuation ended with ${JSON.stringify(two.at(-1)).slice(0, 160)}`,
        );
      });
    },
  },
  {
    id: 'ws-previous-not-found',
    description: 'WebSocket: an unknown previous_response_id is an error envelope with previous_response_not_found',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const messages = await socket.turn({ input: 'x', previous_response_id: 'resp_does_not_exist' });
        const last = messages.at(-1) as { type: string; status?: number; error?: { code?: string } };
        expect(
          last.type === 'error' &&
            typeof last.status === 'number' &&
            last.error?.code === 'previous_response_not_found',
          'websocket-error',
          JSON.stringify(last).slice(0, 160),
        );
      });
    },
  },
  {
    id: 'ws-eviction-after-failure',
    description: 'WebSocket: a failed continuation evicts the store: false response it referenced',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        const one = await socket.turn({ input: 'Hello.', store: false });
        const id = (one.at(-1) as { response: { id: string } }).response.id;
        await socket.turn({
          input: [{ type: 'item_reference', id: 'msg_does_not_exist' }],
          store: false,
          previous_response_id: id,
        });
        const after = await socket.turn({ input: 'Again.', store: false, previous_response_id: id });
        const last = after.at(-1) as { type: string; error?: { code?: string } };
        expect(
          last.type === 'error' && last.error?.code === 'previous_response_not_found',
          'websocket-eviction',
          JSON.stringify(last).slice(0, 160),
        );
      });
    },
  },
  {
    id: 'ws-reconnect-recovery',
    description: 'WebSocket: a stored response is continued from a new connection',
    transport: 'websocket',
    async run(t) {
      const first = await t.socket();
      const one = await first.turn({ input: 'Hello.' });
      first.close();
      const second = await t.socket();
      try {
        const id = (one.at(-1) as { response: { id: string } }).response.id;
        const two = await second.turn({ input: 'Again.', previous_response_id: id });
        expect(
          two.at(-1)?.type === 'response.completed',
          'websocket',
          `the continuation ended with ${JSON.stringify(two.at(-1)).slice(0, 160)}`,
        );
      } finally {
        second.close();
      }
    },
  },
  {
    id: 'ws-compacted-seed',
    description: 'WebSocket: a compacted window seeds a new chain',
    transport: 'websocket',
    async run(t) {
      const compacted = await t.request('POST', '/responses/compact', {
        model: t.config.model,
        input: [user('My name is Ada.')],
      });
      expect(compacted.status === 200, 'status', `compact answered ${compacted.status}`);
      await t.withSocket(async (socket) => {
        const output = (compacted.body as { output: unknown[] }).output;
        const turn = await socket.turn({ input: [...output, user('Continue.')], previous_response_id: null });
        expect(
          turn.at(-1)?.type === 'response.completed',
          'websocket',
          `the turn ended with ${JSON.stringify(turn.at(-1)).slice(0, 160)}`,
        );
      });
    },
  },
  ...PROTOCOL_TESTS,
];
