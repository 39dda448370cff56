// The WebSocket transport: sequential turns, connection-local state, eviction after a failed continuation,
// reconnects, forbidden fields, the connection limit.
import { Skip } from '../types.js';
import { checkSocketTurn, endsTurn, expect, type ComplianceTest } from './context.js';
import { user, weatherTool, toolOutput, responseOf, errorOf, storeFalseToolCall } from './helpers.js';

export const WEBSOCKET_TESTS: ComplianceTest[] = [
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
  {
    id: 'ws-one-in-flight',
    description: 'WebSocket: two response.create messages sent at once are answered one after the other, in order',
    transport: 'websocket',
    async run(t) {
      await t.withSocket(async (socket) => {
        // Each turn is told apart by its echoed metadata: a server running them at once may finish the quick
        // one before the slow one starts, so the events would not interleave, but they would come out of order.
        socket.send({
          input: `Tell me a story. ${t.config.slowPrompt ?? '[slow]'}`,
          store: false,
          metadata: { turn: 'first' },
        });
        socket.send({ input: 'Quick one.', store: false, metadata: { turn: 'second' } });
        const messages = await socket.until(2, 30_000);
        const firstEnd = messages.findIndex(endsTurn);
        const first = messages.slice(0, firstEnd + 1);
        const second = messages.slice(firstEnd + 1);
        const created = (group: typeof messages) => group.filter((m) => m.type === 'response.created');
        expect(
          created(first).length === 1 && created(second).length === 1,
          'ws-one-in-flight',
          'the two turns’ events are interleaved: responses were in flight at the same time',
        );
        const turnOf = (group: typeof messages) =>
          (created(group)[0]?.response as { metadata?: Record<string, unknown> } | undefined)?.metadata?.turn;
        expect(
          turnOf(first) === 'first' && turnOf(second) === 'second',
          'ws-one-in-flight',
          `the second response.create was answered first (turns in the order ${turnOf(first)}, ${turnOf(second)}): responses were in flight at the same time`,
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
      if (limit === undefined)
        throw new Skip(
          "pass the server's limit to wait for it: --websocket-connection-limit-ms MS (runSuite: webSocketConnectionLimitMs)",
        );
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
