// A stored turn serializes its response once (issue 35): the store, the non-streaming answer, the last event
// of a stream (SSE and WebSocket) and a connection's cache share the text. Whatever reuses it must send
// exactly what serializing again would: every event handed over with its JSON is checked against
// JSON.stringify of the event, across the endings and the shapes a turn can answer in.
import type { AnyStreamingEvent } from '@openresponses/events';
import { LATEST_SPEC_VERSION } from '@openresponses/zod';
import { describe, expect, test } from 'vitest';
import { DeterministicModel, InMemoryResponseStore } from '../src/index.js';
import { DEFAULT_LIMITS } from '../src/limits.js';
import { createTurnRunner } from '../src/responses/runner.js';
import { createSealer, generateEncryptionKey } from '../src/responses/sealed.js';
import { TRIGGERS } from '../src/models/deterministic.js';
import { API_KEY, post, startTestServer } from './harness.js';

const runnerWith = (compatibility?: 'openai') => {
  const store = new InMemoryResponseStore();
  const runner = createTurnRunner({
    providers: [new DeterministicModel()],
    defaultModel: 'openresponses-deterministic',
    sealer: createSealer([generateEncryptionKey()]),
    store,
    limits: DEFAULT_LIMITS,
    validateOutgoing: true,
    compatibility,
  });
  return { runner, store };
};

const turns: Array<[string, Record<string, unknown>]> = [
  ['completed', { input: 'Hello! My name is Ada ✓ "quoted".' }],
  ['incomplete', { input: `${TRIGGERS.long} tell me more`, max_output_tokens: 20 }],
  ['failed', { input: `${TRIGGERS.fail} please` }],
  ['with reasoning', { input: `${TRIGGERS.think} why?` }],
  ['a function call', { input: 'call lookup please', tools: [{ type: 'function', name: 'lookup', parameters: {} }] }],
  [
    'superset shapes (lifted)',
    { input: 'run it', tools: [{ type: 'custom', name: 'run_it' }], tool_choice: 'required' },
  ],
  ['store: false', { input: 'Hello', store: false }],
];

describe('the runner hands a stored turn’s JSON to the store, the wire and the last event', () => {
  for (const compatibility of [undefined, 'openai'] as const)
    for (const [name, body] of turns)
      test(`${name}${compatibility ? ', OpenAI compatibility' : ''}`, async () => {
        const { runner, store } = runnerWith(compatibility);
        const handed: Array<{ event: AnyStreamingEvent; json: string }> = [];
        let events = 0;
        const outcome = await runner.turn(
          { model: 'openresponses-deterministic', ...body },
          {
            version: LATEST_SPEC_VERSION,
            owner: 'alice',
            onEvent: (event, json) => {
              events++;
              if (json !== undefined) handed.push({ event, json });
            },
          },
        );
        expect(events).toBeGreaterThan(2);
        for (const { event, json } of handed) expect(json).toBe(JSON.stringify(event));
        if (body.store === false) {
          expect(outcome.json).toBeUndefined();
          expect(handed).toEqual([]);
          return;
        }
        // The input's text whole and in pieces (StoredResponseText.inputPieces), both as JSON.stringify writes it.
        const { response, input, inputPieces } = outcome.json!;
        expect({ response, input, inputPieces: inputPieces?.join('') }).toEqual({
          response: JSON.stringify(outcome.response),
          input: JSON.stringify(outcome.input),
          inputPieces: JSON.stringify(outcome.input),
        });
        const stored = await store.get(outcome.response.id, 'alice');
        expect(stored).toEqual({ response: outcome.response, input: outcome.input });
        // The last event of a turn in spec shapes carries the stored text; a lifted turn's carries another object.
        if (name.startsWith('superset')) expect(handed).toEqual([]);
        else {
          expect(handed.map(({ event }) => event.type)).toEqual([`response.${outcome.response.status}`]);
          expect(JSON.parse(handed[0]!.json).response).toEqual(stored!.response);
        }
      });
});

describe('over HTTP', () => {
  test('the answer is the stored response; a stream ends with it framed as any event, then [DONE]', async () => {
    const server = await startTestServer();
    const auth = { authorization: `Bearer ${API_KEY}` };
    try {
      const answer = await post(server, '/v1/responses', { model: 'openresponses-deterministic', input: 'Hello ✓' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json');
      const text = await answer.text();
      const body = JSON.parse(text) as { id: string };
      const got = await fetch(`${server.url}/v1/responses/${body.id}`, { headers: auth });
      expect(await got.text()).toBe(text);

      const streamed = await post(server, '/v1/responses', {
        model: 'openresponses-deterministic',
        input: 'Stream ✓',
        stream: true,
      });
      const frames = (await streamed.text()).split('\n\n');
      expect(frames.slice(-2)).toEqual(['data: [DONE]', '']);
      const last = frames.at(-3)!;
      const match = /^event: response\.completed\ndata: (.*)$/s.exec(last);
      expect(match, last.slice(0, 80)).not.toBeNull();
      const event = JSON.parse(match![1]!) as { type: string; response: { id: string } };
      expect(match![1]).toBe(JSON.stringify(event));
      const stored = await fetch(`${server.url}/v1/responses/${event.response.id}`, { headers: auth });
      expect(await stored.json()).toEqual(event.response);
    } finally {
      await server.close();
    }
  });
});
