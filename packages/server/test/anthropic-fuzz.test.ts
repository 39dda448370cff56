// Property: whatever an Anthropic Messages upstream streams (well-formed messages of text, thinking,
// redacted thinking, tool use and unknown blocks; or events in any order, with wrong values, unknown event
// and delta types, junk and error events; streams cut or broken, bytes split anywhere), the gateway serves
// a spec-valid event stream (the events checker, to [DONE]) or a spec error, never a 5xx without one nor an
// unexpected failure logged. The upstream is a web Response given to the real AnthropicMessagesProvider.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AnthropicMessagesProvider, createResponsesService } from '../src/index.js';
import {
  expectSpecError,
  expectValidStream,
  serveTurn,
  splits,
  streamEnd,
  text,
  upstreamAnswer,
  watchUnexpected,
  wrongValue,
} from './upstream-fuzz.js';

/** Runs per property (CI-friendly: each is one in-process turn). */
const RUNS = 300;

let answer: () => Response = () => new Response('{}');
const service = createResponsesService({
  providers: [new AnthropicMessagesProvider({ baseUrl: 'http://upstream.invalid', fetch: async () => answer() })],
});
const unexpected = watchUnexpected();

const count = fc.nat({ max: 1_000 });
const usage = fc.record({ input_tokens: count, output_tokens: count }, { requiredKeys: [] });
const messageStart = usage.map((u) => ({
  type: 'message_start',
  message: {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    model: 'claude',
    content: [],
    stop_reason: null,
    usage: u,
  },
}));
const stopReason = fc.constantFrom(
  'end_turn',
  'max_tokens',
  'tool_use',
  'stop_sequence',
  'refusal',
  'pause_turn',
  'new',
);
const messageEnd = fc
  .tuple(stopReason, usage)
  .map(([stop_reason, u]) => [
    { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage: u },
    { type: 'message_stop' },
  ]);

/** One content block at `index`: its start, its deltas, its stop. */
const block = (index: number) =>
  fc
    .oneof(
      fc
        .array(text, { maxLength: 4 })
        .map((texts) => [
          { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
          ...texts.map((t) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } })),
        ]),
      fc.tuple(fc.array(text, { maxLength: 3 }), fc.constantFrom('', 'sig')).map(([thoughts, signature]) => [
        { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
        ...thoughts.map((t) => ({
          type: 'content_block_delta',
          index,
          delta: { type: 'thinking_delta', thinking: t },
        })),
        { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } },
      ]),
      fc.constant([
        { type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: 'opaque' } },
      ]),
      fc
        .tuple(fc.constantFrom('f', 'g', 'h'), fc.array(fc.constantFrom('{"a":', '1}', '', '{}'), { maxLength: 3 }))
        .map(([name, parts]) => [
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: `toolu_${index}`, name, input: {} },
          },
          ...parts.map((p) => ({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: p },
          })),
        ]),
      fc.constant([
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'server_tool_use', id: 'srv', name: 'web_search' },
        },
        { type: 'content_block_delta', index, delta: { type: 'citations_delta', citation: {} } },
      ]),
    )
    .map((events) => [...events, { type: 'content_block_stop', index }]);

/** A message as Anthropic streams it: message_start, blocks in order (pings between), message_delta, message_stop. */
const wellFormed = fc
  .tuple(messageStart, fc.nat({ max: 4 }), messageEnd, fc.boolean())
  .chain(([start, blocks, end, ping]) =>
    fc
      .tuple(...Array.from({ length: blocks }, (_, i) => block(i)))
      .map((all) => [start, ...(ping ? [{ type: 'ping' }] : []), ...all.flat(), ...end]),
  );

/** Any event, anywhere: known types with wrong or out-of-order values, unknown types, error events, junk. */
const anyEvent = fc.oneof(
  messageStart,
  fc
    .nat({ max: 3 })
    .chain((i) => block(i))
    .map((events) => events[0]),
  fc.record({
    type: fc.constant('content_block_delta'),
    index: fc.oneof(fc.nat({ max: 3 }), wrongValue),
    delta: fc.oneof(
      fc.record({
        type: fc.constantFrom('text_delta', 'thinking_delta', 'input_json_delta'),
        text: fc.oneof(text, wrongValue),
      }),
      fc.record({ type: fc.constant('brand_new_delta') }),
      wrongValue,
    ),
  }),
  fc.record({ type: fc.constant('content_block_stop'), index: fc.oneof(fc.nat({ max: 3 }), wrongValue) }),
  messageEnd.map(([delta]) => delta),
  fc.constant({ type: 'message_stop' }),
  fc.record({ type: fc.constant('message_delta'), delta: wrongValue, usage: fc.oneof(usage, wrongValue) }),
  fc.record({
    type: fc.constant('error'),
    error: fc.record({ type: fc.constantFrom('overloaded_error', 'api_error'), message: text }),
  }),
  fc.record({ type: fc.constantFrom('brand_new_event', 'content_block_start'), index: wrongValue }),
  fc.jsonValue({ maxDepth: 2 }),
);
/** Well-formed messages with one event changed, dropped or added now and then; or any events at all. */
const events = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  {
    weight: 2,
    arbitrary: fc
      .tuple(wellFormed, fc.nat(), anyEvent, fc.constantFrom('replace', 'drop', 'insert'))
      .map(([all, at, event, how]) => {
        const i = at % (all.length + 1);
        if (how === 'insert') return [...all.slice(0, i), event, ...all.slice(i)];
        return [...all.slice(0, i), ...(how === 'replace' ? [event] : []), ...all.slice(i + 1)];
      }),
  },
  { weight: 1, arbitrary: fc.array(anyEvent, { maxLength: 10 }) },
);
const frameOf = (event: unknown) => {
  const type = (event as { type?: unknown } | null)?.type;
  return `${typeof type === 'string' ? `event: ${type}\n` : ''}data: ${JSON.stringify(event)}\n\n`;
};

describe('Anthropic Messages stream translation, fuzzed', () => {
  test('any upstream stream: a spec-valid event stream, or a spec error', async () => {
    await fc.assert(
      fc.asyncProperty(events, streamEnd, splits, fc.boolean(), async (all, end, at, withTools) => {
        // A cut stream ends early: the last third of its events never comes.
        const sent = end === 'whole' ? all : all.slice(0, Math.ceil((all.length * 2) / 3));
        answer = () => upstreamAnswer(sent.map(frameOf).join(''), end, at, 'text/event-stream');
        const tools = ['f', 'g'].map((name) => ({
          type: 'function',
          name,
          parameters: { type: 'object', properties: {} },
          strict: false,
        }));
        const { status, contentType, text } = await serveTurn(
          service,
          Object.assign({ model: 'claude-sonnet-4-5', input: 'hi', stream: true }, withTools ? { tools } : {}),
        );
        expect(unexpected).toEqual([]);
        if (!contentType.startsWith('text/event-stream')) return expectSpecError(status, text);
        expect(status).toBe(200);
        expectValidStream(text);
      }),
      { numRuns: RUNS },
    );
  });
});
