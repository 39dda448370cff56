// The hostile contract's scenarios in each family's wire format (hostile-contract.ts): one `HostileWire` per
// registered provider family. A new family adds its wire here and to `HOSTILE_WIRES`.
import type { HostileWire } from './hostile-contract.js';

const chatChunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-hostile',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'hostile',
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  })}\n\n`;

/** Chat Completions chunks (`data:` lines; keep-alives are SSE comments). */
export const chatCompletionsHostileWire: HostileWire = {
  type: 'chat-completions',
  url: (root) => `${root}/v1`,
  streamStart: () => chatChunk({ role: 'assistant', content: '' }),
  floods: {
    text: (payload) => chatChunk({ content: payload }),
    refusal: (payload) => chatChunk({ refusal: payload }),
    reasoning: (payload) => chatChunk({ reasoning_content: payload }),
    'tool-name': (payload, index) =>
      chatChunk({
        tool_calls: [
          index === 0
            ? { index: 0, id: 'call_h', type: 'function', function: { name: 'f', arguments: '' } }
            : { index: 0, function: { name: payload } },
        ],
      }),
    'tool-arguments': (payload, index) =>
      chatChunk({
        tool_calls: [
          index === 0
            ? { index: 0, id: 'call_h', type: 'function', function: { name: 'f', arguments: payload } }
            : { index: 0, function: { arguments: payload } },
        ],
      }),
    'nameless-tool-arguments': (payload) => chatChunk({ tool_calls: [{ index: 0, function: { arguments: payload } }] }),
    logprobs: (payload) =>
      chatChunk(
        { content: 'a' },
        { logprobs: { content: [{ token: payload, logprob: -0.5, bytes: [], top_logprobs: [] }] } },
      ),
    'open-block': (_, index) =>
      chatChunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'f' } }] }),
    'unknown-block': (payload) => chatChunk({ content: '', vendor_block: { type: 'unknown', data: payload } }),
  },
  keepAlive: () => ': keep-alive\n\n',
  deepEvent: (depth) =>
    `data: {"choices":[{"index":0,"delta":{"content":"x","x":${'['.repeat(depth)}${']'.repeat(depth)}}}]}\n\n`,
};

const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const blockStart = (index: number, block: Record<string, unknown>) =>
  anthropicEvent('content_block_start', { index, content_block: block });
const blockDelta = (index: number, delta: Record<string, unknown>) =>
  anthropicEvent('content_block_delta', { index, delta });
const blockStop = (index: number) => anthropicEvent('content_block_stop', { index });
/** The first event opens block 0 with `start`; every event carries `delta` for it. */
const inBlock = (start: Record<string, unknown>, delta: Record<string, unknown>, index: number) =>
  (index === 0 ? blockStart(0, start) : '') + blockDelta(0, delta);

/** Anthropic Messages events (`event:` and `data:`; keep-alives are `ping` events). */
export const anthropicMessagesHostileWire: HostileWire = {
  type: 'anthropic-messages',
  url: (root) => root,
  streamStart: () =>
    anthropicEvent('message_start', {
      message: {
        id: 'msg_hostile',
        type: 'message',
        role: 'assistant',
        model: 'claude-hostile',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    }),
  floods: {
    text: (payload, index) => inBlock({ type: 'text', text: '' }, { type: 'text_delta', text: payload }, index),
    reasoning: (payload, index) =>
      inBlock({ type: 'thinking', thinking: '', signature: '' }, { type: 'thinking_delta', thinking: payload }, index),
    opaque: (payload, index) =>
      inBlock(
        { type: 'thinking', thinking: '', signature: '' },
        { type: 'signature_delta', signature: payload },
        index,
      ),
    redacted: (payload, index) => blockStart(index, { type: 'redacted_thinking', data: payload }) + blockStop(index),
    'tool-name': (payload, index) =>
      blockStart(index, { type: 'tool_use', id: `toolu_${index}`, name: `f${payload}`, input: {} }),
    'tool-arguments': (payload, index) =>
      inBlock(
        { type: 'tool_use', id: 'toolu_h', name: 'f', input: {} },
        { type: 'input_json_delta', partial_json: payload },
        index,
      ),
    'open-block': (_, index) => blockStart(index, { type: 'text', text: '' }),
    'empty-block': (_, index) => blockStart(index, { type: 'text', text: '' }) + blockStop(index),
    'unknown-block': (payload, index) => blockStart(index, { type: 'vendor_block', data: payload }),
  },
  keepAlive: () => anthropicEvent('ping', {}),
  deepEvent: (depth) =>
    `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}\n\n`,
};

/** One Gemini chunk (`GenerateContentResponse`) holding `part`, CRLF-delimited as Google sends them. */
const geminiChunk = (part: Record<string, unknown>) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }] })}\r\n\r\n`;

/** Gemini chunks (`data:` lines; Gemini sends no keep-alives, so an SSE comment stands for one). */
export const geminiHostileWire: HostileWire = {
  type: 'gemini',
  url: (root) => root,
  streamStart: () => geminiChunk({ text: '' }),
  floods: {
    text: (payload) => geminiChunk({ text: payload }),
    reasoning: (payload) => geminiChunk({ text: payload, thought: true }),
    opaque: (payload) => geminiChunk({ text: '', thoughtSignature: payload }),
    'tool-name': (payload) => geminiChunk({ functionCall: { name: `f${payload}`, args: {} } }),
    'tool-arguments': (payload) => geminiChunk({ functionCall: { name: 'f', args: { a: payload } } }),
    // Gemini has no blocks left open: each event starts a new item, thought and answer in turn.
    'open-block': (_, index) => geminiChunk(index % 2 === 0 ? { text: 'x', thought: true } : { text: 'x' }),
    'unknown-block': (payload) => geminiChunk({ executableCode: { language: 'PYTHON', code: payload } }),
  },
  keepAlive: () => ': keep-alive\r\n\r\n',
  deepEvent: (depth) =>
    `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}]}}]}\r\n\r\n`,
};

/** One Responses event (`event:` and `data:`), numbered as a well-behaved server numbers them. */
const responsesEvent = (type: string, data: Record<string, unknown>, index: number) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: index + 1, ...data })}\n\n`;
/** The first event adds item 0 (`item`); every event carries `delta` for it as `type`. */
const inItem = (item: Record<string, unknown>, type: string, delta: Record<string, unknown>, index: number) =>
  (index === 0 ? responsesEvent('response.output_item.added', { output_index: 0, item }, index) : '') +
  responsesEvent(type, { item_id: item.id, output_index: 0, ...delta }, index);
const responsesMessage = { type: 'message', id: 'msg_h', role: 'assistant', status: 'in_progress', content: [] };
const responsesReasoning = { type: 'reasoning', id: 'rs_h', summary: [] };
const responsesCall = {
  type: 'function_call',
  id: 'fc_h',
  call_id: 'call_h',
  name: 'f',
  arguments: '',
  status: 'in_progress',
};

/** A native Responses server's events (`event:` and `data:`; keep-alives are SSE comments). */
export const openResponsesHostileWire: HostileWire = {
  type: 'open-responses',
  url: (root) => `${root}/v1`,
  streamStart: () =>
    `event: response.created\ndata: ${JSON.stringify({
      type: 'response.created',
      sequence_number: 0,
      response: { id: 'resp_h', object: 'response', status: 'in_progress', model: 'hostile', output: [] },
    })}\n\n`,
  floods: {
    text: (payload, index) =>
      inItem(responsesMessage, 'response.output_text.delta', { content_index: 0, delta: payload, logprobs: [] }, index),
    refusal: (payload, index) =>
      inItem(responsesMessage, 'response.refusal.delta', { content_index: 0, delta: payload }, index),
    reasoning: (payload, index) =>
      inItem(responsesReasoning, 'response.reasoning.delta', { content_index: 0, delta: payload }, index),
    // The upstream's encrypted reasoning, whole in each reasoning item's end.
    opaque: (payload, index) =>
      responsesEvent(
        'response.output_item.added',
        { output_index: index, item: { ...responsesReasoning, id: `rs_${index}` } },
        index,
      ) +
      responsesEvent(
        'response.output_item.done',
        { output_index: index, item: { ...responsesReasoning, id: `rs_${index}`, encrypted_content: payload } },
        index,
      ),
    'tool-name': (payload, index) =>
      responsesEvent(
        'response.output_item.added',
        {
          output_index: index,
          item: { ...responsesCall, id: `fc_${index}`, call_id: `call_${index}`, name: `f${payload}` },
        },
        index,
      ),
    'tool-arguments': (payload, index) =>
      inItem(responsesCall, 'response.function_call_arguments.delta', { delta: payload }, index),
    logprobs: (payload, index) =>
      inItem(
        responsesMessage,
        'response.output_text.delta',
        { content_index: 0, delta: 'a', logprobs: [{ token: payload, logprob: -0.5, bytes: [], top_logprobs: [] }] },
        index,
      ),
    'open-block': (_, index) =>
      responsesEvent(
        'response.output_item.added',
        { output_index: index, item: { ...responsesMessage, id: `msg_${index}` } },
        index,
      ),
    'empty-block': (_, index) => {
      const item = { ...responsesMessage, id: `msg_${index}` };
      return (
        responsesEvent('response.output_item.added', { output_index: index, item }, index) +
        responsesEvent(
          'response.output_item.done',
          { output_index: index, item: { ...item, status: 'completed' } },
          index,
        )
      );
    },
    'unknown-block': (payload, index) =>
      responsesEvent(
        'response.output_item.added',
        { output_index: index, item: { type: 'acme:blob', id: `b_${index}`, data: payload } },
        index,
      ),
  },
  keepAlive: () => ': keep-alive\n\n',
  deepEvent: (depth) =>
    `event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"acme:deep","id":"d","x":${'['.repeat(depth)}${']'.repeat(depth)}}}\n\n`,
};

/** The hostile wire of every provider family, by route `type`: a registered family without one fails a test. */
export const HOSTILE_WIRES: Readonly<Record<string, HostileWire>> = {
  [chatCompletionsHostileWire.type]: chatCompletionsHostileWire,
  [anthropicMessagesHostileWire.type]: anthropicMessagesHostileWire,
  [geminiHostileWire.type]: geminiHostileWire,
  [openResponsesHostileWire.type]: openResponsesHostileWire,
};
