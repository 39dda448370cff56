// The replay upstream's Anthropic recordings are real Messages wire format: the official @anthropic-ai/sdk
// reads each of them from the replay upstream over HTTP, as it would read Anthropic's API.
import Anthropic from '@anthropic-ai/sdk';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';

const RECORDINGS = new URL('../src/testing/recordings/', import.meta.url);
const recordings = readdirSync(RECORDINGS).filter((file) => file.startsWith('claude-'));

let upstream: ReplayUpstream;
let client: Anthropic;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  client = new Anthropic({ baseURL: upstream.baseUrl.replace(/\/v1$/, ''), apiKey: 'sk-ant-test', maxRetries: 0 });
});
afterAll(() => upstream.close());

/** The data lines of a recording, parsed: what the SDK must have read. */
const recordedEvents = (file: string) =>
  readFileSync(new URL(file, RECORDINGS), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; [key: string]: unknown });

const params = (model: string) => ({ model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'Hi' }] });

describe('@anthropic-ai/sdk reads every recording', () => {
  test('there are recordings of every kind', () => {
    expect(recordings.filter((f) => f.endsWith('.sse')).length).toBeGreaterThanOrEqual(10);
    expect(recordings.filter((f) => f.startsWith('claude-status-')).length).toBe(8);
  });

  const whole = recordings.filter(
    (file) => file.endsWith('.sse') && !['claude-cut.sse', 'claude-error-midstream.sse'].includes(file),
  );
  test.each(whole)('%s streams into a final message the SDK accepts', async (file) => {
    const model = file.replace(/\.sse$/, '');
    const stream = client.messages.stream(params(model));
    const seen: string[] = [];
    stream.on('streamEvent', (event) => seen.push(event.type));
    const message = await stream.finalMessage();
    const recorded = recordedEvents(file);
    // The SDK reads pings and hands out every other event.
    expect(seen).toEqual(recorded.filter((event) => event.type !== 'ping').map((event) => event.type));
    // The SDK put the blocks together from the deltas: each block's start plus its deltas.
    const starts = recorded.filter((e) => e.type === 'content_block_start');
    expect(message.content.map((block) => block.type)).toEqual(
      starts.map((e) => (e.content_block as { type: string }).type),
    );
    const signatures = recorded
      .filter((e) => e.type === 'content_block_delta' && (e.delta as { type: string }).type === 'signature_delta')
      .map((e) => (e.delta as { signature: string }).signature);
    expect(message.content.flatMap((b) => (b.type === 'thinking' ? [b.signature] : []))).toEqual(signatures);
    for (const block of message.content) if (block.type === 'tool_use') expect(typeof block.input).toBe('object');
    const stop = recorded.find((e) => e.type === 'message_delta')!.delta as { stop_reason: string };
    expect(message.stop_reason).toBe(stop.stop_reason);
  });

  test.each(recordings.filter((file) => file.endsWith('.json') && !file.startsWith('claude-status-')))(
    '%s is a message the SDK returns as is',
    async (file) => {
      const message = await client.messages.create(params(file.replace(/\.json$/, '')));
      expect(message).toEqual(JSON.parse(readFileSync(new URL(file, RECORDINGS), 'utf8')));
    },
  );

  test.each(recordings.filter((file) => file.startsWith('claude-status-')))(
    '%s is an APIError of its status and type',
    async (file) => {
      const recorded = JSON.parse(readFileSync(new URL(file, RECORDINGS), 'utf8')) as {
        status: number;
        body: { error: { type: string } };
      };
      const failure = await client.messages.create(params(file.replace(/\.json$/, ''))).catch((error) => error);
      expect(failure).toBeInstanceOf(Anthropic.APIError);
      expect(failure.status).toBe(recorded.status);
      expect(failure.error.error.type).toBe(recorded.body.error.type);
    },
  );

  test('a mid-stream error event is thrown by the SDK as that error', async () => {
    const stream = client.messages.stream(params('claude-error-midstream'));
    const failure = await stream.finalMessage().catch((error) => error);
    expect(String(failure)).toContain('overloaded_error');
  });

  test('a stream cut before message_stop fails in the SDK', async () => {
    const stream = client.messages.stream(params('claude-cut'));
    await expect(stream.finalMessage()).rejects.toThrow();
  });
});
