// What a Chat Completions upstream sends is checked against the wire schemas before any of it becomes part
// of a response: a gateway in front of a real HTTP upstream on 127.0.0.1 that answers each model name with a
// given body (a whole completion, or SSE chunks). Invalid values (a count that is a word or negative, an
// object call id, a delta that is not text) end the turn failed with a model_error, and nothing malformed
// is served or stored; the nulls and extra fields real servers (vLLM, Ollama) send are accepted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ChatCompletionsProvider } from '../src/index.js';
import type { UpstreamResponse } from '../src/models/upstream.js';
import { EVENTS_PER_TURN } from '../src/models/upstream-provider.js';
import { nodeFetch, type RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';
import { modelRequest } from './model-request.js';
import { toChatRequest } from '../src/models/chat-completions/request.js';
import type { ItemField } from '@openresponses/types';

/** Per model name: the JSON answer (an object) or the SSE chunks (an array, `[DONE]` added). */
const ANSWERS: Record<string, unknown> = {};

let upstream: Server;
let server: RunningServer;
beforeAll(async () => {
  upstream = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as { model: string; stream?: boolean };
    const answer = ANSWERS[body.model];
    if (!Array.isArray(answer)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const chunk of answer) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    providers: [
      new ChatCompletionsProvider({
        baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
        timeoutMs: 5_000,
        fetch: nodeFetch,
      }),
    ],
  });
});
afterAll(async () => {
  await server.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
const completion = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage,
  ...extra,
});
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const call = (id: unknown) => ({ index: 0, id, type: 'function', function: { name: 'f', arguments: '{}' } });

const INVALID_JSON: Array<[string, unknown]> = [
  ['a word for a count', completion({ content: 'hi' }, { usage: { ...usage, prompt_tokens: 'lots' } })],
  ['a negative count', completion({ content: 'hi' }, { usage: { ...usage, completion_tokens: -3 } })],
  ['an object call id', completion({ content: null, tool_calls: [call({ x: 1 })] })],
  ['content that is not text', completion({ content: 42 })],
  ['no choices at all', { id: 'x', usage }],
  ['logprob bytes that are not bytes', completion({ content: 'hi' })],
];
(INVALID_JSON[5]![1] as { choices: Array<Record<string, unknown>> }).choices[0]!.logprobs = {
  content: [{ token: 'hi', logprob: -0.1, bytes: [104, 999] }],
};

const INVALID_STREAMS: Array<[string, unknown[]]> = [
  ['a delta that is not text', [chunk({ content: 'Hel' }), chunk({ content: { text: 'lo' } })]],
  [
    'a word for a count in the usage chunk',
    [chunk({ content: 'Hi' }), chunk({}, 'stop'), { choices: [], usage: { ...usage, prompt_tokens: 'lots' } }],
  ],
  ['a negative count', [chunk({ content: 'Hi' }), chunk({}, 'stop', { usage: { ...usage, total_tokens: -1 } })]],
  ['an object call id', [chunk({ content: 'Hi' }), chunk({ tool_calls: [call({ x: 1 })] })]],
  [
    'a call index that is not a number',
    [chunk({ content: 'Hi' }), chunk({ tool_calls: [{ ...call('c'), index: 'a' }] })],
  ],
  ['choices that are not a list', [chunk({ content: 'Hi' }), { choices: { 0: {} } }]],
];

describe('invalid upstream data is a model_error, never part of a response', () => {
  test.each(INVALID_JSON)('a whole completion with %s: a 500 model_error', async (name, answer) => {
    const model = `json ${name}`;
    ANSWERS[model] = answer;
    const response = await post(server, '/v1/responses', { model, input: 'x' });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toMatchObject({ error: { type: 'model_error', code: 'upstream_invalid_response' } });
    expect(text).not.toContain('lots');
  });

  test.each(INVALID_STREAMS)(
    'a stream with %s: error then response.failed, and what is stored is failed',
    async (name, chunks) => {
      const model = `stream ${name}`;
      ANSWERS[model] = chunks;
      // The harness runs the stream checker on what it reads.
      const { events, violations } = await stream(server, { model, input: 'x', store: true });
      expect(violations).toEqual([]);
      expect(events.at(-2)).toMatchObject({
        type: 'error',
        error: { type: 'model_error', code: 'upstream_invalid_chunk' },
      });
      const failed = events.at(-1) as unknown as { type: string; response: { id: string; usage: unknown } };
      expect(failed.type).toBe('response.failed');
      expect(JSON.stringify(failed)).not.toContain('lots');
      const stored = await fetch(`${server.url}/v1/responses/${failed.response.id}`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      if (stored.status !== 404) {
        expect(stored.status).toBe(200);
        const body = (await stored.json()) as { status: string };
        expect(body.status).toBe('failed');
        expect(JSON.stringify(body)).not.toContain('lots');
      }
    },
  );
});

describe('what real servers send besides the fields the gateway reads passes', () => {
  test('vLLM and Ollama nulls and extra fields in a whole completion', async () => {
    ANSWERS.vllm = {
      id: 'chatcmpl-9',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      system_fingerprint: 'fp_ollama',
      prompt_logprobs: null,
      kv_transfer_params: null,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello.',
            refusal: null,
            annotations: null,
            audio: null,
            function_call: null,
            tool_calls: [],
            reasoning_content: null,
          },
          logprobs: null,
          finish_reason: 'stop',
          stop_reason: null,
        },
      ],
      usage: { ...usage, prompt_tokens_details: null, completion_tokens_details: null },
    };
    const response = await post(server, '/v1/responses', { model: 'vllm', input: 'x' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; usage: { input_tokens: number } };
    expect(body.status).toBe('completed');
    expect(body.usage.input_tokens).toBe(5);
  });

  test('a stream with nulls for absent fields, unknown finish reasons and extra fields', async () => {
    ANSWERS['vllm-stream'] = [
      chunk({ role: 'assistant', content: '', reasoning_content: null, tool_calls: null }, null, { usage: null }),
      chunk({ content: 'Hi', refusal: null, reasoning: null }),
      chunk({ content: 'Hi' }, null, { system_fingerprint: 'fp', service_tier: null }),
      chunk({}, 'eos', { usage: { ...usage, prompt_tokens_details: { cached_tokens: null } } }),
    ];
    const { events, violations } = await stream(server, { model: 'vllm-stream', input: 'x' });
    expect(violations).toEqual([]);
    const final = (events.at(-1) as unknown as { type: string; response: { output_text?: string } }).response;
    expect(events.at(-1)!.type).toBe('response.completed');
    expect(JSON.stringify(final)).toContain('"text":"HiHi"');
  });
});

describe('an answer the upstream sends at once', () => {
  test('its first delta is yielded, and the event loop turns (the transport writes it), before the rest is translated', async () => {
    ANSWERS['all-at-once'] = [
      chunk({ role: 'assistant', content: '' }),
      ...['a', 'b', 'c'].map((word) => chunk({ content: word })),
      chunk({}, 'stop', { usage }),
    ];
    const provider = new ChatCompletionsProvider({
      baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
      fetch: nodeFetch,
    });
    let turned = false;
    const seen: string[] = [];
    for await (const part of provider.generate(modelRequest({ model: 'all-at-once', stream: true }))) {
      if (part.type !== 'text-delta') continue;
      seen.push(`${part.delta} ${turned ? 'after' : 'before'} the turn`);
      if (part.delta === 'a') setImmediate(() => (turned = true));
    }
    expect(seen).toEqual(['a before the turn', 'b after the turn', 'c after the turn']);
  });
});

describe('an answer the upstream floods', () => {
  test(`is translated at most EVENTS_PER_TURN (${EVENTS_PER_TURN}) events a turn of the event loop`, async () => {
    // Every read() answers at once, as reads of a socket that keeps data ready do (Node reads one up to 32
    // times in a turn): 100 text deltas a read, 4,000 in all, then the finish.
    const sse = (...chunks: unknown[]) =>
      new TextEncoder().encode(
        chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join(''),
      );
    const reads = [
      sse(chunk({ role: 'assistant', content: '' })),
      ...Array.from({ length: 40 }, () => sse(...Array.from({ length: 100 }, () => chunk({ content: 'x' })))),
      sse(chunk({}, 'stop', { usage }), '[DONE]'),
    ];
    const body = {
      getReader: () => ({
        read: async () => {
          const value = reads.shift();
          return value ? { done: false as const, value } : { done: true as const, value: undefined };
        },
        releaseLock() {},
      }),
    };
    const answer = { ok: true, status: 200, headers: { get: () => 'text/event-stream' }, body };
    const provider = new ChatCompletionsProvider({
      baseUrl: 'http://127.0.0.1:9/v1',
      fetch: async () => answer as unknown as UpstreamResponse,
    });
    const perTurn = [0];
    let flooding = true;
    const everyTurn = () => {
      perTurn.push(0);
      if (flooding) setImmediate(everyTurn);
    };
    setImmediate(everyTurn);
    for await (const part of provider.generate(modelRequest({ stream: true })))
      if (part.type === 'text-delta' && part.delta === 'x') perTurn[perTurn.length - 1]!++;
    flooding = false;
    expect(perTurn.reduce((a, b) => a + b)).toBe(4_000);
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(EVENTS_PER_TURN);
  });
});

describe('the request sent upstream', () => {
  const user = (content: unknown) => ({ type: 'message', id: 'msg_1', status: 'completed', role: 'user', content });
  test.each([
    ['a string', 'Hi there', 'Hi there'],
    ['one input_text part', [{ type: 'input_text', text: 'Hi there' }], 'Hi there'],
    [
      'several text parts, joined',
      [
        { type: 'input_text', text: 'Hi ' },
        { type: 'input_text', text: 'there' },
      ],
      'Hi there',
    ],
  ])('a user message with %s is a user message of that text', (_, content, text) => {
    const body = toChatRequest(modelRequest({ items: [user(content)] as ItemField[] }), { upstreamModel: 'up' });
    expect(body).toEqual({ model: 'up', messages: [{ role: 'user', content: text }] });
  });

  test("a route's defaults come first; the turn's own fields win", () => {
    const body = toChatRequest(modelRequest({ temperature: 0.5 }), {
      upstreamModel: 'up',
      defaults: { temperature: 0.1, stop: ['END'], model: 'never' },
    });
    expect(body).toEqual({
      temperature: 0.5,
      stop: ['END'],
      model: 'up',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });
});
