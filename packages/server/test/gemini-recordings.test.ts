// The replay upstream's Gemini recordings are real Gemini API wire format: the official @google/genai SDK reads
// each of them from the replay upstream over HTTP, as it would read Google's API.
import { ApiError, GoogleGenAI } from '@google/genai';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { GEMINI_MODEL_PAGES } from '../src/testing/replay-upstream.js';

const RECORDINGS = new URL('../src/testing/recordings/', import.meta.url);
const recordings = readdirSync(RECORDINGS).filter((file) => file.startsWith('gemini-'));

let upstream: ReplayUpstream;
let client: GoogleGenAI;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  client = new GoogleGenAI({
    apiKey: 'gemini-test-key-0123456789',
    httpOptions: { baseUrl: upstream.baseUrl.replace(/\/v1$/, ''), retryOptions: { attempts: 1 } },
  });
});
afterAll(() => upstream.close());

/** The chunks of a recording, parsed: what the SDK must have read. */
const recordedChunks = (file: string) =>
  readFileSync(new URL(file, RECORDINGS), 'utf8')
    .split('\r\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

describe('@google/genai reads every recording', () => {
  test('there are recordings of every kind', () => {
    expect(recordings.filter((f) => f.endsWith('.sse')).length).toBeGreaterThanOrEqual(11);
    expect(recordings.filter((f) => f.startsWith('gemini-status-')).length).toBe(7);
  });

  const whole = recordings.filter(
    (file) => file.endsWith('.sse') && !['gemini-cut.sse', 'gemini-error-midstream.sse'].includes(file),
  );
  test.each(whole)('%s streams chunk by chunk into what was recorded', async (file) => {
    const stream = await client.models.generateContentStream({
      model: file.replace(/\.sse$/, ''),
      contents: 'Hi',
    });
    const seen: Record<string, unknown>[] = [];
    for await (const chunk of stream) seen.push(plain(chunk));
    const recorded = recordedChunks(file);
    expect(seen).toHaveLength(recorded.length);
    for (const [index, chunk] of recorded.entries()) expect(seen[index]).toMatchObject(chunk);
    // Signatures reach the SDK byte for byte, on the part that carried them.
    const signatures = (chunks: Record<string, unknown>[]) =>
      chunks.flatMap((chunk) =>
        ((chunk.candidates as Array<{ content?: { parts?: Array<{ thoughtSignature?: string }> } }>) ?? []).flatMap(
          (candidate) => (candidate.content?.parts ?? []).flatMap((part) => part.thoughtSignature ?? []),
        ),
      );
    expect(signatures(seen)).toEqual(signatures(recorded));
  });

  test('a mid-stream error chunk is an error the SDK throws', async () => {
    const stream = await client.models.generateContentStream({ model: 'gemini-error-midstream', contents: 'Hi' });
    const failure = await (async () => {
      for await (const _ of stream);
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toContain('internal error');
  });

  test('gemini-text.json is an answer the SDK returns as is', async () => {
    const answer = await client.models.generateContent({ model: 'gemini-text', contents: 'Hi' });
    expect(answer.text).toBe('Hello from Gemini.');
    expect(plain(answer)).toMatchObject(JSON.parse(readFileSync(new URL('gemini-text.json', RECORDINGS), 'utf8')));
  });

  test('a stream recording joined is the whole answer the SDK returns (thoughts, calls and signatures kept)', async () => {
    const answer = await client.models.generateContent({ model: 'gemini-thinking-tool-get_weather', contents: 'Hi' });
    expect(answer.functionCalls).toEqual([{ name: 'get_weather', args: { location: 'Paris' } }]);
    const parts = answer.candidates![0]!.content!.parts!;
    expect(parts.map((part) => [part.thought ?? false, part.thoughtSignature !== undefined])).toEqual([
      [true, false],
      [false, true],
    ]);
  });

  test.each(recordings.filter((file) => file.startsWith('gemini-status-')))(
    '%s is an ApiError of its status',
    async (file) => {
      const recorded = JSON.parse(readFileSync(new URL(file, RECORDINGS), 'utf8')) as {
        status: number;
        body: { error: { status: string } };
      };
      const failure = await client.models
        .generateContent({ model: file.replace(/\.json$/, ''), contents: 'Hi' })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ApiError);
      expect((failure as ApiError).status).toBe(recorded.status);
      expect((failure as ApiError).message).toContain(recorded.body.error.status);
    },
  );

  test('the model list pages as the SDK follows it', async () => {
    const names: string[] = [];
    for await (const model of await client.models.list({ config: { pageSize: 3 } })) names.push(model.name!);
    expect(names).toEqual(GEMINI_MODEL_PAGES.flat().map((id) => `models/${id}`));
  });
});
