// The client against the real reference server on 127.0.0.1: create, stream (events, listeners, text,
// final response, cancellation), errors, retries against injected faults, compact and the stored-
// response endpoints, forward compatibility with unknown events and lenient peer variants.
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { checkStream } from '@openresponses/events';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { injectFaults } from '@openresponses/server/testing';
import { createRegistry, defineItem } from '@openresponses/extensions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  createClient,
  OpenResponsesError,
  InvalidPayloadError,
  outputText,
  ResponseFailedError,
  type OpenResponsesClient,
} from '../src/index.js';

const KEY = 'client-test-key';
let server: RunningServer;
let client: OpenResponsesClient;
beforeAll(async () => {
  server = await startServer({ apiKeys: [KEY], validateOutgoing: true, middleware: [injectFaults()], warn: () => {} });
  client = createClient({ baseURL: `${server.url}/v1`, apiKey: KEY, retryBaseMs: 10 });
});
afterAll(() => server.close());

const openConnections = () =>
  new Promise<number>((resolve) => server.server.getConnections((_, count) => resolve(count)));

describe('create and stream', () => {
  test('create returns a typed, validated response', async () => {
    const response = await client.responses.create({ input: 'Hello client' });
    expect(response.status).toBe('completed');
    expect(response.output[0]).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'You said: "Hello client".' }],
    });
    // output_text joins the message text, as openai-node's; it is not part of the JSON.
    expect(response.output_text).toBe('You said: "Hello client".');
    expect(JSON.parse(JSON.stringify(response))).not.toHaveProperty('output_text');
    expect((await client.responses.retrieve(response.id)).output_text).toBe('You said: "Hello client".');
  });

  test('output_text is every output_text part of the assistant messages, in order, and "" without any', async () => {
    const stream = await client.responses.stream({ input: 'Stream me [think]' });
    let streamed = '';
    stream.on('response.output_text.delta', (event) => (streamed += event.delta));
    const final = await stream.finalResponse();
    expect(streamed.length).toBeGreaterThan(0);
    expect(final.output_text).toBe(streamed);
    expect(final.output.some((item) => item.type === 'reasoning')).toBe(true);
    expect(
      outputText({
        output: [
          {
            type: 'message',
            content: [
              { type: 'output_text', text: 'a' },
              { type: 'refusal', refusal: 'no' },
            ],
          },
          { type: 'function_call', name: 'f', arguments: '{}' },
          { type: 'message', content: [{ type: 'output_text', text: 'b' }] },
        ] as never,
      }),
    ).toBe('ab');
    expect(outputText({ output: [] })).toBe('');
  });

  test('stream: typed events, listeners and the final response', async () => {
    const stream = await client.responses.create({ input: 'Stream me [think]', stream: true });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const events = [];
    for await (const event of stream) events.push(event);
    expect(checkStream(events, {})).toEqual([]);
    expect(deltas.join('')).toBe('You said: "Stream me [think]".');
    const final = await stream.finalResponse();
    expect(final.output.map((i) => i.type)).toEqual(['reasoning', 'message']);
  });

  test('textStream yields the text as it arrives', async () => {
    const stream = await client.responses.stream({ input: 'Text only' });
    let text = '';
    for await (const delta of stream.textStream()) text += delta;
    expect(text).toBe('You said: "Text only".');
  });

  test('a stream that fails yields error and response.failed, then throws ResponseFailedError', async () => {
    const stream = await client.responses.stream({ input: 'go [fail]' });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(seen.slice(-2)).toEqual(['error', 'response.failed']);
    expect(error).toBeInstanceOf(ResponseFailedError);
    expect(error).toMatchObject({ type: 'model_error', code: 'model_failed' });
    await expect((await client.responses.stream({ input: 'again [fail]' })).finalResponse()).rejects.toBeInstanceOf(
      ResponseFailedError,
    );
  });

  test('aborting mid-stream closes the connection and the server stops the turn', async () => {
    const before = await openConnections();
    const controller = new AbortController();
    const stream = await client.responses.stream({ input: 'A slow one [slow] [long]' }, { signal: controller.signal });
    let count = 0;
    const error = await (async () => {
      for await (const _ of stream) if (++count === 5) controller.abort();
    })().catch((e: unknown) => e);
    expect(count).toBe(5);
    expect(error).toBeDefined();
    for (let i = 0; i < 50 && (await openConnections()) > before; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await openConnections()).toBeLessThanOrEqual(before);
    // The server noticed: the turn ended as failed (cancelled) instead of running to the end.
    const id = stream.response!.id;
    let stored = await client.responses.retrieve(id).catch(() => undefined);
    for (let i = 0; i < 50 && !stored; i++) {
      await new Promise((r) => setTimeout(r, 20));
      stored = await client.responses.retrieve(id).catch(() => undefined);
    }
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
  });
});

describe('errors and retries', () => {
  test('errors carry status, type, code and param', async () => {
    const error = await client.responses
      .create({ input: 'x', previous_response_id: 'resp_missing' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenResponsesError);
    expect(error).toMatchObject({
      status: 404,
      type: 'not_found',
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });
  });

  test('429 and 5xx are retried with backoff, honouring Retry-After', async () => {
    const started = Date.now();
    const response = await client.responses.create(
      { input: 'after faults' },
      { headers: { 'openresponses-test-fail': '429;times=1;retry-after=0.3;key=a' } },
    );
    expect(response.status).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    const again = await client.responses.create(
      { input: 'after 500s' },
      { headers: { 'openresponses-test-fail': '503;times=2;key=b' } },
    );
    expect(again.status).toBe('completed');
  });

  test('retries stop at maxRetries, and a 4xx is never retried', async () => {
    const error = await client.responses
      .create({ input: 'x' }, { headers: { 'openresponses-test-fail': '500;times=5;key=c' } })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500, code: 'injected_fault' });
    // key d fails twice with 400: a retry would have consumed the second failure and succeeded on the third call.
    await expect(
      client.responses.create({ input: 'x' }, { headers: { 'openresponses-test-fail': '400;times=2;key=d' } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.responses.create({ input: 'x' }, { headers: { 'openresponses-test-fail': '400;times=2;key=d' } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.responses.create({ input: 'x' }, { headers: { 'openresponses-test-fail': '400;times=2;key=d' } }),
    ).resolves.toMatchObject({ status: 'completed' });
  });
});

describe('other endpoints', () => {
  test('retrieve, inputItems, delete', async () => {
    const response = await client.responses.create({ input: 'Store me' });
    expect((await client.responses.retrieve(response.id)).id).toBe(response.id);
    expect((await client.responses.inputItems(response.id)).data).toHaveLength(1);
    expect(await client.responses.delete(response.id)).toMatchObject({ deleted: true });
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });

  test('compact returns a validated compacted window', async () => {
    const compacted = await client.responses.compact({
      model: 'openresponses-deterministic',
      input: [{ type: 'message', role: 'user', content: 'My name is Joan.' }],
    });
    expect(compacted.object).toBe('response.compaction');
    const next = await client.responses.create({
      input: [...(compacted.output as never[]), { type: 'message', role: 'user', content: 'What is my name?' }],
    });
    expect(next.output.at(-1)).toMatchObject({ content: [{ text: 'Your name is Joan.' }] });
  });
});

describe('forward compatibility', () => {
  let peer: Server;
  let peerUrl: string;
  beforeAll(async () => {
    const fixtures = new URL('../../events/test/__fixtures__/', import.meta.url);
    peer = createServer((req, res) => {
      const file = req.headers['x-fixture'] as string;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(readFileSync(new URL(file, fixtures)));
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => peer.close(() => resolve())));

  test('lenient mode accepts a peer that names reasoning events response.reasoning_text.*', async () => {
    const lenient = createClient({ baseURL: peerUrl, profile: 'lenient', maxRetries: 0 });
    const stream = await lenient.responses.stream(
      { input: 'x' },
      { headers: { 'x-fixture': 'reasoning-text-names.sse' } },
    );
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toContain('response.reasoning.delta');
    expect((await stream.finalResponse()).output[0]).toMatchObject({ type: 'reasoning', content: [{ text: 'think' }] });
    // Without lenient, the peer's names are unknown event types: forward mode passes them through untouched,
    // exact mode refuses them.
    const forwardClient = createClient({ baseURL: peerUrl, maxRetries: 0 });
    const passed: string[] = [];
    const forwardStream = await forwardClient.responses.stream(
      { input: 'x' },
      { headers: { 'x-fixture': 'reasoning-text-names.sse' } },
    );
    for await (const event of forwardStream) passed.push(event.type);
    expect(passed).toContain('response.reasoning_text.delta');
    const exact = createClient({ baseURL: peerUrl, maxRetries: 0, validate: 'exact' });
    await expect(
      (
        await exact.responses.stream({ input: 'x' }, { headers: { 'x-fixture': 'reasoning-text-names.sse' } })
      ).finalResponse(),
    ).rejects.toThrow(/does not match the spec/);
  });

  test('the events before an invalid one are handed out, then the error (the body arrives in one chunk)', async () => {
    const exact = createClient({ baseURL: peerUrl, maxRetries: 0, validate: 'exact' });
    const stream = await exact.responses.stream(
      { input: 'x' },
      { headers: { 'x-fixture': 'reasoning-text-names.sse' } },
    );
    const types: string[] = [];
    const failure = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((error: unknown) => error);
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
    expect(failure).toBeInstanceOf(InvalidPayloadError);
    expect((failure as Error).message).toMatch(/^Event 3 \(response\.reasoning_text\.delta\)/);
  });

  test('lenient mode accepts missing sequence numbers and a missing [DONE]', async () => {
    const lenient = createClient({ baseURL: peerUrl, profile: 'lenient', maxRetries: 0 });
    for (const fixture of ['no-sequence-number.sse', 'no-done.sse']) {
      const stream = await lenient.responses.stream({ input: 'x' }, { headers: { 'x-fixture': fixture } });
      expect((await stream.finalResponse()).output[0]).toMatchObject({ content: [{ text: 'Hello world' }] });
    }
  });

  test('unknown vendor events and items pass through intact', async () => {
    const stream = await client.responses.stream({ input: 'hello' });
    const events = [];
    for await (const event of stream) events.push(event);
    // The reference server sends no vendor events; a forward-compatible client validating them still must not drop them.
    const { normalizeEvents } = await import('../src/stream.js');
    const vendor = { type: 'acme:trace_event' as const, sequence_number: 99, span: { name: 'tool', ms: 3 } };
    const passed = [];
    for await (const event of normalizeEvents(
      (async function* () {
        yield* [...events.slice(0, 2), vendor];
      })(),
      { version: '2026-04-24', validate: 'forward', profile: 'spec' },
    ))
      passed.push(event);
    expect(passed.at(-1)).toBe(vendor);
  });
});

describe('validation of answers', () => {
  // A peer that answers whatever JSON the request carries in x-answer, so each case sends its own payload.
  let peer: Server;
  let peerUrl: string;
  let valid: Record<string, unknown>;
  beforeAll(async () => {
    peer = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.headers['x-answer'] as string);
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as { port: number }).port}/v1`;
    valid = (await client.responses.create({ input: 'Hello peer' })) as unknown as Record<string, unknown>;
  });
  afterAll(() => new Promise<void>((resolve) => peer.close(() => resolve())));

  const answer = (body: unknown) => ({ headers: { 'x-answer': JSON.stringify(body) } });
  const withOutput = (item: unknown) => ({ ...valid, output: [item] });
  const message = (text: unknown) => ({
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  });

  test.each(['forward', 'exact'] as const)('%s: a wrong field is reported at its own path', async (validate) => {
    const peerClient = createClient({ baseURL: peerUrl, maxRetries: 0, validate });
    expect(await peerClient.responses.create({ input: 'x' }, answer(withOutput(message('fine'))))).toMatchObject({
      output: [{ content: [{ text: 'fine' }] }],
    });
    const error = await peerClient.responses.create({ input: 'x' }, answer(withOutput(message(42)))).catch((e) => e);
    expect(error).toMatchObject({ name: 'InvalidPayloadError', type: 'invalid_payload' });
    expect(error.issues[0]).toMatchObject({ path: 'output[0].content[0].text' });
    expect(error.message).toContain('output[0].content[0].text: Expected string, received number');
  });

  test('forward passes an unknown item type intact, exact names it', async () => {
    const vendor = { type: 'acme:note', id: 'n_1', status: 'completed', body: { x: 1 } };
    const forward = createClient({ baseURL: peerUrl, maxRetries: 0 });
    expect((await forward.responses.create({ input: 'x' }, answer(withOutput(vendor)))).output[0]).toEqual(vendor);
    const exact = createClient({ baseURL: peerUrl, maxRetries: 0, validate: 'exact' });
    const error = await exact.responses.create({ input: 'x' }, answer(withOutput(vendor))).catch((e) => e);
    expect(error.issues[0]).toMatchObject({ path: 'output[0].type' });
    const off = createClient({ baseURL: peerUrl, maxRetries: 0, validate: 'off' });
    expect((await off.responses.create({ input: 'x' }, answer({ not: 'a response' }))) as unknown).toEqual({
      not: 'a response',
    });
  });

  test("a registry's items are checked with its extended schema", async () => {
    const note = defineItem('acme:note', { body: z.string() });
    const registry = createRegistry({ items: [note] });
    const registered = createClient({ baseURL: peerUrl, maxRetries: 0, validate: 'exact', registry });
    const item = { type: 'acme:note', id: 'n_1', status: 'completed', body: 'hi' };
    expect((await registered.responses.create({ input: 'x' }, answer(withOutput(item)))).output[0]).toEqual(item);
    const error = await registered.responses
      .create({ input: 'x' }, answer(withOutput({ ...item, body: 3 })))
      .catch((e) => e);
    expect(error.issues[0]).toMatchObject({ path: 'output[0].body' });
  });
});
