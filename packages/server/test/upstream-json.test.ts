// One bounded parse for every upstream body and event (limits.ts `parseUpstreamJson`, read through
// `UpstreamCall.json`): JSON nested past `maxUpstreamJsonDepth` is its own spec error, `upstream_too_deep`,
// never a stack overflow reported as `upstream_unavailable`. Both families, JSON and streamed, default limits.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ResponsesError } from '../src/errors.js';
import { DEFAULT_LIMITS, jsonDepthExceeds, parseUpstreamJson } from '../src/limits.js';
import { AnthropicMessagesProvider } from '../src/models/anthropic-messages/index.js';
import { ChatCompletionsProvider } from '../src/models/chat-completions/index.js';
import type { RunningServer } from '../src/node/index.js';
import { type HostileExchange, type HostileUpstream, startHostileUpstream } from '../src/testing/index.js';
import { post, startTestServer } from './harness.js';

/** Nested arrays this deep: far past the default 128, short enough to write quickly (a 1 MiB body). */
const DEPTH = 512 * 1024;
const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;

describe('parseUpstreamJson', () => {
  const limits = { maxUpstreamJsonDepth: 4, maxUpstreamBodyBytes: 64 };
  test('parses what is within both bounds', () => {
    expect(parseUpstreamJson('{"a":[[["x"]]]}', limits)).toEqual({ a: [[['x']]] });
    // Brackets inside strings are not nesting.
    expect(parseUpstreamJson('"[[[[[[[["', limits)).toBe('[[[[[[[[');
  });
  test('too deep: upstream_too_deep, before parsing', () => {
    const error = (() => {
      try {
        parseUpstreamJson('[[[[[]]]]]', limits);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ResponsesError);
    expect(error).toMatchObject({ type: 'model_error', code: 'upstream_too_deep', status: 500 });
  });
  test('the depth check agrees with the nesting of the parsed value, brackets in strings too', () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;
    const bracketed = fc.oneof(fc.jsonValue({ maxDepth: 8 }), fc.string({ unit: fc.constantFrom('[', '{', 'a', '"') }));
    fc.assert(
      fc.property(bracketed, fc.integer({ min: 0, max: 8 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonDepthExceeds(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 2000 },
    );
  });
  test('too large: upstream_response_too_large; not JSON: the SyntaxError', () => {
    expect(() => parseUpstreamJson(`"${'x'.repeat(100)}"`, limits)).toThrow(
      expect.objectContaining({ code: 'upstream_response_too_large' }),
    );
    expect(() => parseUpstreamJson('{', limits)).toThrow(SyntaxError);
  });
  test('the default depth is the client side one (128)', () => {
    expect(DEFAULT_LIMITS.maxUpstreamJsonDepth).toBe(128);
    expect(() => parseUpstreamJson(deep, DEFAULT_LIMITS)).toThrow(
      expect.objectContaining({ code: 'upstream_too_deep' }),
    );
  });
});

describe('jsonDepthExceeds (the text scan before every parse of outside JSON)', () => {
  /** A value's nesting, from the parsed value: what the scan of its text must agree with. */
  const depthOf = (value: unknown): number =>
    value !== null && typeof value === 'object'
      ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
      : 0;
  // Strings made of the characters that could fool a scan: quotes, backslash runs, brackets.
  const pieces = ['"', '\\', '\\\\', '[', ']', '{', '}', 'x', '\\"', '"\\'];
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const text = () => Array.from({ length: random(6) }, () => pieces[random(pieces.length)]).join('');
  const value = (depth: number): unknown => {
    if (depth === 0 || random(4) === 0) return text();
    const children = Array.from({ length: 1 + random(3) }, () => value(depth - 1));
    return random(2) === 0 ? children : Object.fromEntries(children.map((child, i) => [text() + i, child]));
  };
  test('agrees with the parsed depth on values whose strings hold quotes, backslashes and brackets', () => {
    for (let sample = 0; sample < 2_000; sample++) {
      const v = value(1 + random(8));
      const json = JSON.stringify(v);
      const depth = depthOf(v);
      for (const limit of [depth - 1, depth])
        if (limit >= 0) expect(jsonDepthExceeds(json, limit), json).toBe(depth > limit);
    }
  });
  test('an unterminated string ends the scan (JSON.parse rejects the text)', () => {
    expect(jsonDepthExceeds(`["${'['.repeat(100)}`, 2)).toBe(false);
    expect(jsonDepthExceeds(`[[[["\\"]]]]`, 3)).toBe(true);
  });
  test('text too short to open and close limit + 1 containers is not scanned (JSON.parse rejects what is unclosed)', () => {
    expect(jsonDepthExceeds('[[[[[[[[[', 4)).toBe(false);
    expect(jsonDepthExceeds('[[[[[]]]]]', 4)).toBe(true);
  });
});

const sse = (exchange: HostileExchange) => exchange.response.writeHead(200, { 'content-type': 'text/event-stream' });
const json = (exchange: HostileExchange) => exchange.response.writeHead(200, { 'content-type': 'application/json' });
const anthropicStart = `event: message_start\ndata: ${JSON.stringify({
  type: 'message_start',
  message: {
    id: 'msg_d',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [],
    usage: { input_tokens: 1, output_tokens: 0 },
  },
})}\n\n`;

const BEHAVIOURS = {
  'chat-deep-answer': {
    description: 'a Chat Completions answer nested deep',
    async serve(exchange: HostileExchange) {
      json(exchange);
      exchange.response.end(`{"choices":[{"index":0,"message":{"role":"assistant","content":"x","x":${deep}}}]}`);
    },
  },
  'chat-deep-chunk': {
    description: 'a Chat Completions chunk nested deep',
    async serve(exchange: HostileExchange) {
      sse(exchange);
      exchange.response.end(`data: {"choices":[{"index":0,"delta":{"content":"x","x":${deep}}}]}\n\n`);
    },
  },
  'anthropic-deep-answer': {
    description: 'a Messages answer whose tool_use input is nested deep',
    async serve(exchange: HostileExchange) {
      json(exchange);
      exchange.response.end(
        `{"id":"msg_d","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":${deep}}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`,
      );
    },
  },
  'anthropic-deep-event': {
    description: 'a Messages stream event nested deep',
    async serve(exchange: HostileExchange) {
      sse(exchange);
      exchange.response.end(
        `${anthropicStart}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":${deep}}}\n\n`,
      );
    },
  },
};

let upstream: HostileUpstream;
let server: RunningServer;
beforeAll(async () => {
  upstream = await startHostileUpstream({ behaviours: BEHAVIOURS });
  server = await startTestServer({
    providers: [
      new ChatCompletionsProvider({ baseUrl: upstream.urlFor('chat-deep-answer'), route: { model: 'chat-json' } }),
      new ChatCompletionsProvider({ baseUrl: upstream.urlFor('chat-deep-chunk'), route: { model: 'chat-sse' } }),
      new AnthropicMessagesProvider({ baseUrl: upstream.urlFor('anthropic-deep-answer'), route: { model: 'a-json' } }),
      new AnthropicMessagesProvider({ baseUrl: upstream.urlFor('anthropic-deep-event'), route: { model: 'a-sse' } }),
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

describe.each([
  ['Chat Completions', 'chat-json', 'chat-sse'],
  ['Anthropic Messages', 'a-json', 'a-sse'],
])('%s, default limits: deep upstream JSON is upstream_too_deep', (_, jsonModel, sseModel) => {
  test('a JSON answer: 500 upstream_too_deep', async () => {
    const response = await post(server, '/v1/responses', { model: jsonModel, input: 'hi', tools: tool });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { type: 'model_error', code: 'upstream_too_deep' } });
    await upstream.waitForConnections(0);
  });
  test('a streamed event: the stream fails with upstream_too_deep', async () => {
    const response = await post(server, '/v1/responses', { model: sseModel, input: 'hi', tools: tool, stream: true });
    const text = await response.text();
    expect(text).toContain('"code":"upstream_too_deep"');
    expect(text).not.toContain('Maximum call stack');
    await upstream.waitForConnections(0);
  });
});

const tool = [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }];
