// outputToInput: a response's output replayed as the next request's input, on the real server (store:
// false, so the server can only know the history from what we send) and item by item.
import { startServer, type RunningServer } from '@openresponses/server/node';
import type { ResponseResource } from '@openresponses/types';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, outputToInput, sanitizeReplayedHistory, type OpenResponsesClient } from '../src/index.js';

let server: RunningServer;
let client: OpenResponsesClient;
beforeAll(async () => {
  server = await startServer({ validateOutgoing: true, warn: () => {} });
  client = createClient({ baseURL: `${server.url}/v1` });
});
afterAll(() => server.close());

describe('outputToInput', () => {
  test('a reasoning turn replayed without previous_response_id continues the conversation', async () => {
    const first = await client.responses.create({ input: 'My name is Mei. [think]', store: false });
    const replayed = outputToInput(first);
    expect(replayed.map((item) => item.type)).toEqual(first.output.map((item) => item.type));
    expect(replayed.some((item) => item.type === 'reasoning')).toBe(true);
    const second = await client.responses.create({
      input: sanitizeReplayedHistory([
        { type: 'message', role: 'user', content: 'My name is Mei. [think]' },
        ...replayed,
        { type: 'message', role: 'user', content: 'What is my name?' },
      ]),
      store: false,
    });
    expect(second.status).toBe('completed');
    expect(second.output.at(-1)).toMatchObject({ content: [{ text: 'Your name is Mei.' }] });
  });

  test('each item keeps what its input form accepts', () => {
    const output = [
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'short' }],
        content: [{ type: 'reasoning_text', text: 'long private chain' }],
        encrypted_content: 'sealed',
      },
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        phase: 'final_answer',
        content: [
          {
            type: 'output_text',
            text: 'Hi',
            annotations: [
              { type: 'url_citation', start_index: 0, end_index: 2, url: 'https://example.com', title: 'x' },
            ],
            logprobs: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }],
          },
          { type: 'refusal', refusal: 'no' },
          { type: 'acme:sticker', sticker: 'wave' },
        ],
      },
      {
        type: 'message',
        id: 'msg_2',
        status: 'completed',
        role: 'user',
        content: [
          { type: 'input_text', text: 'look' },
          { type: 'output_text', text: 'not an input part for a user', annotations: [] },
        ],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      { type: 'acme:note', id: 'n_1', note: 'kept' },
    ] as unknown as ResponseResource['output'];

    expect(outputToInput({ output })).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'short' }],
        encrypted_content: 'sealed',
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        phase: 'final_answer',
        content: [
          {
            type: 'output_text',
            text: 'Hi',
            annotations: [
              { type: 'url_citation', start_index: 0, end_index: 2, url: 'https://example.com', title: 'x' },
            ],
          },
          { type: 'refusal', refusal: 'no' },
          { type: 'acme:sticker', sticker: 'wave' },
        ],
      },
      {
        type: 'message',
        role: 'user',
        id: 'msg_2',
        status: 'completed',
        content: [{ type: 'input_text', text: 'look' }],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
      { type: 'acme:note', id: 'n_1', note: 'kept' },
    ]);
  });
});
