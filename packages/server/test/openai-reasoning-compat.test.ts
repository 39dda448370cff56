// Reasoning streams with the clients people use. The official openai SDK's responses.stream() helper throws
// on the spec's response.reasoning.* names (it knows response.reasoning_text.*): against the default,
// conformant server it fails, and with `compatibility: 'openai'` the stream helper, finalResponse() and raw
// stream: true iteration all work. The AI SDK streams reasoning from the default server as it is.
import { createOpenAI } from '@ai-sdk/openai';
import { checkStream } from '@openresponses/events';
import { streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

let conformant: RunningServer;
let compatible: RunningServer;
beforeAll(async () => {
  conformant = await startTestServer();
  compatible = await startTestServer({ compatibility: 'openai' });
});
afterAll(() => Promise.all([conformant.close(), compatible.close()]));

const model = 'openresponses-deterministic';
const request = {
  model,
  input: 'What is two plus two? [think]',
  reasoning: { effort: 'low' as const, summary: 'auto' as const },
};
const client = (server: RunningServer) => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });

describe('the openai SDK with reasoning on', () => {
  test('the default server is conformant, which the stream helper cannot read', async () => {
    const error = await client(conformant)
      .responses.stream(request)
      .finalResponse()
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(/Unhandled response stream event.*response\.reasoning\.delta/);
  });

  test('with compatibility openai: responses.stream() events and finalResponse()', async () => {
    const stream = client(compatible).responses.stream(request);
    const reasoning: string[] = [];
    const summary: string[] = [];
    stream.on('response.reasoning_text.delta', (event) => reasoning.push(event.delta));
    stream.on('response.reasoning_summary_text.delta', (event) => summary.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    const item = final.output[0] as { content?: Array<{ text: string }>; summary: Array<{ text: string }> };
    expect(reasoning.join('')).toBe(item.content![0]!.text);
    expect(reasoning.join('')).toMatch(/^Reading the latest message/);
    expect(summary.join('')).toBe(item.summary[0]!.text);
    expect(final.output_text).toBe('You said: "What is two plus two? [think]".');
  });

  test('with compatibility openai: raw stream: true iteration, numbered without gaps', async () => {
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of await client(compatible).responses.create({ ...request, stream: true }))
      events.push(event);
    const types = events.map((e) => e.type);
    expect(types).toContain('response.reasoning_text.delta');
    expect(types).toContain('response.reasoning_text.done');
    expect(types.some((t) => t.startsWith('response.reasoning.'))).toBe(false);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    // Only the names differ from the spec: the lenient profile reports nothing but those.
    const violations = checkStream(events, { profile: 'lenient' });
    expect(new Set(violations.map((v) => `${v.severity}:${v.rule}`))).toEqual(new Set(['warning:peer-event-name']));
  });
});

describe('the AI SDK with reasoning on', () => {
  test('streamText reads reasoning and text from the default, conformant server', async () => {
    const provider = createOpenAI({ baseURL: `${conformant.url}/v1`, apiKey: API_KEY });
    const result = streamText({
      model: provider.responses(model),
      prompt: 'What is two plus two? [think]',
      providerOptions: { openai: { reasoningEffort: 'low', reasoningSummary: 'auto' } },
      maxRetries: 0,
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('You said: "What is two plus two? [think]".');
    expect(await result.reasoningText).toMatch(/^The user wrote/);
    expect(await result.finishReason).toBe('stop');
  });
});
