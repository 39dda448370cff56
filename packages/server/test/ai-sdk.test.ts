// The Vercel AI SDK's OpenAI responses provider against the real server: generateText, streamText
// and a multi-step tool call.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

let server: RunningServer;
let provider: ReturnType<typeof createOpenAI>;
beforeAll(async () => {
  server = await startTestServer();
  provider = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY });
});
afterAll(() => server.close());

const model = () => provider.responses('openresponses-deterministic');

describe('Vercel AI SDK', () => {
  test('generateText', async () => {
    const result = await generateText({ model: model(), prompt: 'Hello from the AI SDK', maxRetries: 0 });
    expect(result.text).toBe('You said: "Hello from the AI SDK".');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  test('streamText', async () => {
    const result = streamText({ model: model(), prompt: 'Stream with the AI SDK', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('You said: "Stream with the AI SDK".');
    expect(await result.finishReason).toBe('stop');
  });

  test('a multi-step tool call', async () => {
    const calls: string[] = [];
    const result = await generateText({
      model: model(),
      prompt: 'What is the weather in Lisbon?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            calls.push(city);
            return { city, temperature_c: 21 };
          },
        }),
      },
    });
    expect(calls).toEqual(['Lisbon']);
    expect(result.steps).toHaveLength(2);
    expect(result.text).toBe('Here is what I found: get_weather returned {"city":"Lisbon","temperature_c":21}.');
  });
});
