// What every runtime test does from Node: the same observations taken in Node (the reference) and in the
// guest runtime, and a served handler driven with the real openai SDK.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkStream, decodeSSE, type AnyStreamingEvent } from '@openresponses/events';
import { createClient } from '@openresponses/client';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { expect } from 'vitest';
import { repoRoot, specVersions } from '../../test-support/tarballs.js';

export const API_KEY = 'runtime-test-key';
export const model = 'openresponses-deterministic';

/** The recorded streams the suite decodes: a conforming one and one without `response.output_text.done`. */
export function suiteInput(consumer: string): string {
  const fixture = (name: string) =>
    readFileSync(path.join(repoRoot, 'packages/events/test/__fixtures__', name), 'utf8');
  const file = path.join(consumer, 'suite-input.json');
  writeFileSync(
    file,
    JSON.stringify({ sse: { good: fixture('good-text.sse'), broken: fixture('no-output-text-done.sse') } }),
  );
  return file;
}

export interface SuiteResult {
  exports: Record<string, string[]>;
  types: { versions: string[]; latest: string; eventTypes: number };
  zod: Record<string, Record<string, 'valid' | string[]>>;
  extensions: { vendorItem: boolean; brokenVendorItem: boolean; badSlug: string };
  events: Record<
    string,
    { events: number; sawDone: boolean; violations: string[]; status: string; accumulatedEqualsTerminal: boolean }
  >;
}

/** The facts the reference (Node) run must show, so a runtime that matches it has proven them too. */
export function expectSuiteFacts(reference: SuiteResult): void {
  for (const [entry, names] of Object.entries(reference.exports)) expect(names.length, entry).toBeGreaterThan(0);
  expect(reference.types.versions).toEqual(specVersions);
  expect(reference.types.eventTypes).toBeGreaterThan(20);
  expect(Object.keys(reference.zod)).toEqual(['classic', 'mini']);
  for (const target of Object.values(reference.zod)) {
    expect(target.goodResponse).toBe('valid');
    expect(target.goodRequest).toBe('valid');
    expect(target.unknownItemForward).toBe('valid');
    expect(target.badResponse).toEqual(expect.arrayContaining([expect.stringMatching(/^status: /)]));
    expect(target.badItem).toEqual(expect.arrayContaining([expect.stringMatching(/^output\[0\]\./)]));
    expect(target.badRequest).toEqual(expect.arrayContaining([expect.stringMatching(/^model: /)]));
    expect(target.unknownItemExact).not.toBe('valid');
  }
  expect(reference.extensions).toEqual({
    vendorItem: true,
    brokenVendorItem: false,
    badSlug: 'ExtensionDefinitionError',
  });
  expect(reference.events.good).toMatchObject({ sawDone: true, violations: [], status: 'completed' });
  expect(reference.events.good!.accumulatedEqualsTerminal).toBe(true);
  expect(reference.events.broken!.violations).toContain('text-done-missing');
}

/** The handler served at `baseURL`, driven with the real openai SDK: JSON, streaming, a tool round trip, continuation, errors. */
export async function driveWithOpenAI(baseURL: string): Promise<void> {
  const client = new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: API_KEY, maxRetries: 0 });

  const created = await client.responses.create({ model, input: 'Hello there' });
  expect(created.status).toBe('completed');
  expect(created.output_text).toBe('You said: "Hello there".');

  const stream = await client.responses.create({ model, input: 'Stream this please [think]', stream: true });
  const events: Array<{ type: string }> = [];
  let text = '';
  for await (const event of stream) {
    events.push(event);
    if (event.type === 'response.output_text.delta') text += event.delta;
  }
  expect(events[0]!.type).toBe('response.created');
  expect(events.at(-1)!.type).toBe('response.completed');
  expect(text).toBe('You said: "Stream this please [think]".');
  expect(checkStream(events as never, {})).toEqual([]);

  const tools = [
    {
      type: 'function' as const,
      name: 'get_weather',
      strict: false,
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];
  const first = await client.responses.create({ model, input: 'What is the weather in Paris?', tools });
  const call = first.output.find((item) => item.type === 'function_call');
  expect(call && JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
  const answered = await client.responses.create({
    model,
    previous_response_id: first.id,
    tools,
    input: [{ type: 'function_call_output', call_id: call!.call_id, output: '{"temperature_c":18}' }],
  });
  expect(answered.output_text).toBe('Here is what I found: get_weather returned {"temperature_c":18}.');

  const one = await client.responses.create({ model, input: 'Hi, my name is Grace.' });
  const two = await client.responses.create({ model, previous_response_id: one.id, input: 'What is my name?' });
  expect(two.output_text).toBe('Your name is Grace.');

  const missing = await client.responses
    .create({ model, input: 'x', previous_response_id: 'resp_missing' })
    .catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  expect((missing as { error: unknown }).error).toMatchObject({
    type: 'not_found',
    code: 'previous_response_not_found',
    param: 'previous_response_id',
  });
  const unauthorized = await new OpenAI({ baseURL: `${baseURL}/v1`, apiKey: 'wrong', maxRetries: 0 }).responses
    .create({ model, input: 'x' })
    .catch((e: unknown) => e);
  expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
}

/** A streamed turn that fails: an `error` event, then `response.failed`, and the stream checker agrees it is well-formed. */
export async function expectFailingStream(baseURL: string): Promise<void> {
  const response = await fetch(`${baseURL}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model, input: 'Please [fail]', stream: true }),
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const decoded = decodeSSE(response.body!);
  const events: AnyStreamingEvent[] = [];
  for await (const event of decoded) events.push(event);
  expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
  expect(checkStream(events, { sawDone: decoded.sawDone })).toEqual([]);
}

/** A bad request body is a spec-shaped JSON error with status 400. */
export async function expectBadRequest(baseURL: string): Promise<void> {
  const response = await fetch(`${baseURL}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: '{"model": 7',
  });
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ error: { type: 'invalid_request', code: expect.any(String) } });
}

/** What our client reported from inside a runtime (guest/client.mjs). */
export function expectClientReport(report: unknown): void {
  expect(report).toEqual({
    created: { status: 'completed', text: 'You said: "Hello from the guest".' },
    streamed: {
      first: 'response.created',
      last: 'response.completed',
      reasoning: true,
      text: 'You said: "Stream from the guest [think]".',
    },
    agent: {
      stopReason: 'final_message',
      toolCalls: 1,
      steps: 2,
      text: 'Here is what I found: get_weather returned {"city":"Lisbon","temperature_c":22}.',
    },
    continued: { previous: true, text: 'Your name is Ada.' },
    error: { status: 404, type: 'not_found', code: 'previous_response_not_found', param: 'previous_response_id' },
  });
}

const messageText = (response: { output: readonly unknown[] }) =>
  (response.output as Array<{ type: string; content?: Array<{ text?: string }> }>)
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => part.text ?? '')
    .join('');

/** The first message a raw socket receives, or how its upgrade was refused. */
function firstMessage(url: string, apiKey: string, send?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${apiKey}` } });
    socket.once('open', () => send !== undefined && socket.send(send));
    socket.once('message', (data) => {
      resolve(JSON.parse(String(data)));
      socket.close();
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      response.on('end', () => resolve({ refusedWith: response.statusCode, body: JSON.parse(body) }));
    });
    socket.once('error', reject);
  });
}

/**
 * WebSocket mode on /v1/responses, driven from Node by our client over `ws`: turns in order, a
 * `store: false` continuation from the connection-local cache, an unknown message type answered with an
 * error envelope, and an upgrade with a wrong key refused with a spec-shaped 401.
 */
export async function driveWebSocket(baseURL: string): Promise<void> {
  const client = createClient({ baseURL: `${baseURL}/v1`, apiKey: API_KEY, maxRetries: 0 });
  const session = await client.responses.connect({ WebSocket: WebSocket as never });
  try {
    const first = await session.send('Hi, my name is Ada.', { model, store: false });
    expect(first.status).toBe('completed');
    const second = await session.send('What is my name?', { model, store: false });
    expect(second.previous_response_id).toBe(first.id);
    expect(messageText(second)).toBe('Your name is Ada.');
  } finally {
    session.close();
  }
  const socketURL = `${baseURL.replace(/^http/, 'ws')}/v1/responses`;
  expect(await firstMessage(socketURL, API_KEY, '{"type":"response.nope"}')).toMatchObject({
    type: 'error',
    status: 400,
    error: { type: 'invalid_request', code: 'unsupported_event_type' },
  });
  expect(await firstMessage(socketURL, 'wrong-key')).toMatchObject({
    refusedWith: 401,
    body: { error: { type: 'authentication_error' } },
  });
}
