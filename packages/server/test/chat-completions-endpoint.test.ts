// The legacy POST /v1/chat/completions (served from the Responses pipeline) with the official openai
// package's chat.completions.create and .stream(); and a gateway whose upstream is that endpoint, so a
// Responses client reaches the embedded model through Responses -> Chat Completions -> Responses.
import net from 'node:net';
import { checkStream } from '@openresponses/events';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { ChatCompletionsProvider, DeterministicModel, type ModelPart, type ModelProvider } from '../src/index.js';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer, stream } from './harness.js';

let legacy: RunningServer;
let gateway: RunningServer;
let chat: OpenAI;
let client: OpenAI;
const warnings: string[] = [];
/** The Chat Completions bodies the gateway sent upstream (read from its fetch, which it still makes for real). */
const sent: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  legacy = await startTestServer({ chatCompletionsEndpoint: true, warn: (message) => warnings.push(message) });
  gateway = await startTestServer({
    providers: [
      new DeterministicModel(),
      new ChatCompletionsProvider({
        baseUrl: `${legacy.url}/v1`,
        apiKey: API_KEY,
        route: { prefix: 'up/' },
        fetch: (input, init) => {
          if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
          return fetch(input, init);
        },
      }),
    ],
  });
  chat = new OpenAI({ baseURL: `${legacy.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gateway.close();
  await legacy.close();
});

const model = 'openresponses-deterministic';
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('POST /v1/chat/completions (legacy layer)', () => {
  test('is off by default, and warns at startup when on', async () => {
    const response = await post(gateway, '/v1/chat/completions', {
      model,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(response.status).toBe(404);
    expect(warnings.some((w) => w.includes('/v1/chat/completions') && w.includes('legacy'))).toBe(true);
  });

  test('chat.completions.create answers from the Responses pipeline', async () => {
    const completion = await chat.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: 'Respond with "Bonjour."' },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]!.message).toMatchObject({ role: 'assistant', content: 'Bonjour.' });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  test('streaming with include_usage: content deltas, a finish reason, a usage chunk', async () => {
    const chunks = await chat.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Stream these words' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const reasons: Array<string | null> = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of chunks) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) reasons.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('You said: "Stream these words".');
    expect(reasons.filter(Boolean)).toEqual(['stop']);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  test('.stream() with a tool: the calls are rebuilt from streamed fragments; the follow-up reads the tool message', async () => {
    const runner = chat.chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
      tools: [weather],
    });
    const first = await runner.finalChatCompletion();
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls).toHaveLength(1);
    const call = message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    const second = await chat.chat.completions.create({
      model,
      messages: [
        { role: 'user', content: 'What is the weather in Paris?' },
        message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny, 21°C' },
      ],
      tools: [weather],
    });
    expect(second.choices[0]!.message.content).toBe('Here is what I found: get_weather returned sunny, 21°C.');
  });

  test('a tool message may carry parts: text parts are joined, an image makes the output a parts list', async () => {
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } };
    const history = (content: OpenAI.Chat.ChatCompletionToolMessageParam['content']) => [
      { role: 'user' as const, content: 'What is the weather in Paris?' },
      { role: 'assistant' as const, content: null, tool_calls: [call] },
      { role: 'tool' as const, tool_call_id: 'call_1', content },
    ];
    const joined = await chat.chat.completions.create({
      model,
      messages: history([
        { type: 'text', text: 'sunny' },
        { type: 'text', text: ', 21°C' },
      ]),
      tools: [weather],
    });
    expect(joined.choices[0]!.message.content).toBe('Here is what I found: get_weather returned sunny, 21°C.');
    const withImage = await chat.chat.completions.create({
      model,
      messages: history([
        { type: 'text', text: 'see the map' },
        { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
      ] as never),
      tools: [weather],
    });
    expect(withImage.choices[0]!.finish_reason).toBe('stop');
  });

  test('max_tokens that runs out finishes with length; reasoning arrives as reasoning_content', async () => {
    const cut = await chat.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Tell a long story [long]' }],
      max_tokens: 16,
    });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.usage!.completion_tokens).toBe(16);
    const thought = await chat.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Think [think]' }],
    });
    expect((thought.choices[0]!.message as unknown as { reasoning_content: string }).reasoning_content).toMatch(
      /^Reading the latest message/,
    );
  });

  test('bad and unsupported requests are spec-shaped 400s naming the parameter', async () => {
    const cases: Array<[Record<string, unknown>, string, string | null]> = [
      [{ model }, 'invalid_value', 'messages'],
      [{ model, messages: [{ role: 'robot', content: 'x' }] }, 'invalid_value', 'messages[0].role'],
      [{ model, messages: [{ role: 'user', content: 'x' }], stop: ['\n'] }, 'unsupported_parameter', 'stop'],
      [{ model, messages: [{ role: 'user', content: 'x' }], n: 2 }, 'unsupported_parameter', 'n'],
      [
        { model, messages: [{ role: 'user', content: 'x' }], logit_bias: { 1: 2 } },
        'unsupported_parameter',
        'logit_bias',
      ],
      [{ model: 'nope', messages: [{ role: 'user', content: 'x' }] }, 'model_not_found', 'model'],
    ];
    for (const [body, code, param] of cases) {
      const error = await chat.chat.completions.create(body as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
        type: 'invalid_request',
        code,
        param,
      });
    }
  });

  test('a model failure mid-stream reaches the SDK as an error', async () => {
    const chunks = await chat.chat.completions.create({
      model,
      messages: [{ role: 'user', content: '[fail]' }],
      stream: true,
    });
    const error = await (async () => {
      for await (const _ of chunks) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain('failed on request');
  });
});

describe('a gateway in front of a Chat Completions endpoint (our own)', () => {
  test('GET /v1/models lists the embedded model and what the upstream lists, with its prefix', async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual([model, `up/${model}`]);
  });

  test('text, streamed: the gateway’s stream passes the checker and the upstream got the mapped request', async () => {
    const { events, violations } = await stream(gateway, { model: `up/${model}`, input: 'Through two layers [think]' });
    expect(violations).toEqual([]);
    const final = (events.at(-1) as unknown as { response: { output: Array<{ type: string }>; status: string } })
      .response;
    expect(final.status).toBe('completed');
    expect(final.output.map((i) => i.type)).toEqual(['reasoning', 'message']);
    expect(events.filter((e) => e.type === 'response.output_text.delta').length).toBeGreaterThan(1);
    expect(sent.at(-1)).toMatchObject({ model, stream: true, stream_options: { include_usage: true } });
    expect(checkStream(events, { sawDone: true })).toEqual([]);
  });

  test('multi-turn with previous_response_id: the history goes upstream and the model recalls it', async () => {
    const one = await client.responses.create({ model: `up/${model}`, input: 'Hello! My name is Ada.' });
    const two = await client.responses.create({
      model: `up/${model}`,
      input: 'What is my name?',
      previous_response_id: one.id,
    });
    expect(two.output_text).toBe('Your name is Ada.');
    expect(sent.at(-1)!.messages).toEqual([
      { role: 'user', content: 'Hello! My name is Ada.' },
      { role: 'assistant', content: 'You said: "Hello! My name is Ada.".' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  test('a function tool round trip through both layers', async () => {
    const tools = [
      {
        type: 'function' as const,
        name: 'get_weather',
        description: 'Weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: `up/${model}`, input: 'What is the weather in Oslo?', tools });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Oslo"}' });
    const second = await client.responses.create({
      model: `up/${model}`,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'snow' }],
      tools,
    });
    expect(second.output_text).toBe('Here is what I found: get_weather returned snow.');
  });

  test('the upstream’s max_tokens cut becomes an incomplete response', async () => {
    const response = await client.responses.create({
      model: `up/${model}`,
      input: 'Long please [long]',
      max_output_tokens: 20,
    });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(sent.at(-1)!.max_tokens).toBe(20);
  });
});

/** Text deltas of 10 bytes, as many as it is asked for, counting how many the server pulled. */
class Firehose implements ModelProvider {
  readonly contextWindow = 1_000_000;
  pulled = 0;
  /** Settles when the turn stops pulling: all deltas given, or the stream dropped. */
  readonly stopped: Promise<void>;
  private stop!: () => void;
  constructor(
    readonly name: string,
    private readonly deltas: number,
  ) {
    this.stopped = new Promise((resolve) => {
      this.stop = resolve;
    });
  }
  supports(model: string) {
    return model === this.name;
  }
  async *generate(): AsyncGenerator<ModelPart> {
    try {
      yield { type: 'text-start', id: 't' };
      for (; this.pulled < this.deltas; this.pulled++) yield { type: 'text-delta', id: 't', delta: 'zzzzzzzzz ' };
      yield { type: 'text-end', id: 't' };
      yield { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: this.deltas } };
    } finally {
      this.stop();
    }
  }
}

describe('a streaming client that never reads (issue 23 finding 5)', () => {
  // 3.8 MB of text under the 4 MiB output cap; as chunks or events ~70 MB of SSE, far past what loopback's buffers hold.
  const DELTAS = 380_000;
  const legacyHose = new Firehose('hose-legacy', DELTAS);
  const responsesHose = new Firehose('hose-responses', DELTAS);
  const socketHose = new Firehose('hose-socket', DELTAS);
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer({
      chatCompletionsEndpoint: true,
      providers: [legacyHose, responsesHose, socketHose],
      limits: { writeHighWaterBytes: 64 * 1024, stalledWriteMs: 1_000 },
    });
  });
  afterAll(() => server.close());

  test.each([
    ['/v1/chat/completions', legacyHose, { messages: [{ role: 'user', content: 'x' }] }],
    ['/v1/responses', responsesHose, { input: 'x' }],
  ] as const)(
    '%s: the turn stops producing while the client is behind, and the stalled stream is dropped',
    async (path, hose, fields) => {
      const body = JSON.stringify({ model: hose.name, stream: true, ...fields });
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${API_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      socket.pause(); // never read
      // The stall timeout is 1 s here; without backpressure the turn pulls every delta (into memory) and ends on its own.
      const stopped = await Promise.race([
        hose.stopped.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000)),
      ]);
      expect(stopped, 'the turn was cancelled').toBe(true);
      // What was produced is what the socket's buffers held, a fraction of the answer.
      expect(hose.pulled).toBeLessThan(DELTAS / 4);
      const received = await new Promise<{ bytes: number; head: string }>((resolve) => {
        let bytes = 0;
        let head = '';
        socket.on('data', (chunk: Buffer) => {
          if (bytes === 0) head = chunk.subarray(0, 12).toString();
          bytes += chunk.length;
        });
        socket.once('close', () => resolve({ bytes, head }));
        setTimeout(() => resolve({ bytes: Number.POSITIVE_INFINITY, head }), 10_000);
        socket.resume();
      });
      // The stream had started (a 200 cut short) and the server closed it.
      expect(received.head).toBe('HTTP/1.1 200');
      expect(received.bytes).toBeLessThan(DELTAS * 10 * 4);
    },
  );

  test('over WebSocket: the turn stops producing while the client is behind, and is cancelled when it is dropped', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.on('error', () => {});
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.pause(); // never read
    socket.send(JSON.stringify({ type: 'response.create', model: socketHose.name, input: 'x' }));
    const stopped = await Promise.race([
      socketHose.stopped.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 30_000)),
    ]);
    expect(stopped, 'the turn was cancelled').toBe(true);
    expect(socketHose.pulled).toBeLessThan(DELTAS / 4);
    socket.resume();
    await closed;
  });
});
