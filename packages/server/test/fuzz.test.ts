// Property: whatever a client sends (arbitrary JSON, near-valid create bodies with wrong fields, broken
// text, odd content types, over HTTP and as WebSocket messages), the real server answers without a 5xx
// or a crash, and every error is the spec's error object. Outgoing validation is on, so a response or
// event that breaks the schema would surface here as a 500.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

/** Runs per property; the README's reliability section quotes these. */
const HTTP_RUNS = 400;
const WEBSOCKET_RUNS = 200;

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ limits: { maxBodyBytes: 256 * 1024 } });
});
afterAll(() => server.close());

/** Values of the shapes the schema names, mixed with wrong ones, so bodies get past JSON and into validation and the model. */
const anything = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
);
// No `[fail]`: the embedded model's deliberate model_error is a 500 by the spec, not a client mistake.
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('[think] hi', '[long] story', '[refuse] no', 'weather in Paris', 'my name is Ada'),
);
const contentPart = fc.oneof(
  fc.record({ type: fc.constant('input_text'), text }),
  fc.record({ type: fc.constantFrom('input_text', 'output_text', 'input_image', 'refusal', 'x:y'), text: anything }),
);
const item = fc.oneof(
  { weight: 4, arbitrary: fc.record({ role: fc.constant('user'), content: text }) },
  fc.record({
    role: fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool'),
    content: fc.oneof(text, fc.array(contentPart, { maxLength: 3 })),
  }),
  fc.record(
    {
      type: fc.constantFrom(
        'message',
        'function_call',
        'function_call_output',
        'reasoning',
        'item_reference',
        'compaction',
        'acme:thing',
      ),
      id: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(undefined)),
      call_id: fc.string({ maxLength: 8 }),
      name: fc.string({ maxLength: 8 }),
      arguments: fc.oneof(fc.json({ maxDepth: 2 }), anything),
      output: fc.oneof(text, anything),
      encrypted_content: fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constant('or1.!!!.@@@'),
        fc.constant('or1.e30.AAAA'),
      ),
      summary: fc.oneof(fc.constant([]), anything),
    },
    { requiredKeys: ['type'] },
  ),
  // A compaction item alone, so it gets past validation with broken encrypted content.
  fc.record({
    type: fc.constant('compaction'),
    encrypted_content: fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ maxLength: 30 }).map((tail) => `or1.${tail}`),
      fc.constantFrom('or1.!!!.@@@', 'or1.a.b', 'or1.e30.AAAA', 'or1..'),
    ),
  }),
  anything,
);
const tool = fc.oneof(
  fc.record({
    type: fc.constant('function'),
    name: fc.constantFrom('get_weather', 'lookup', 'x'),
    parameters: fc.oneof(
      fc.constant({ type: 'object', properties: { city: { type: 'string' }, n: { type: 'integer' } } }),
      fc.jsonValue({ maxDepth: 4 }),
    ),
  }),
  anything,
);
/** Mostly a valid value, sometimes anything: most bodies get past validation, the rest probe it. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: anything });
const createBody = fc.record(
  {
    model: mostly(fc.constant('openresponses-deterministic')),
    input: mostly(fc.oneof(text, fc.array(item, { maxLength: 5 }))),
    instructions: mostly(text),
    tools: mostly(fc.array(tool, { maxLength: 3 })),
    tool_choice: mostly(
      fc.oneof(
        fc.constantFrom('auto', 'none', 'required'),
        fc.record({ type: fc.constant('function'), name: fc.constantFrom('get_weather', 'nope') }),
      ),
    ),
    truncation: mostly(fc.constantFrom('auto', 'disabled')),
    max_output_tokens: mostly(fc.integer({ min: 16, max: 50 })),
    max_tool_calls: mostly(fc.integer({ min: 0, max: 3 })),
    temperature: mostly(fc.double({ min: 0, max: 2, noNaN: true })),
    reasoning: mostly(fc.record({ effort: fc.constantFrom('low', 'high', 'none') })),
    previous_response_id: fc.oneof(
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 6, arbitrary: fc.constant(undefined) },
    ),
    store: mostly(fc.boolean()),
    stream: mostly(fc.boolean()),
    metadata: mostly(fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 })),
  },
  { requiredKeys: [] },
);

type ErrorObject = { type: unknown; code: unknown; param: unknown; message: unknown };

function expectSpecError(error: ErrorObject) {
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(['invalid_request', 'authentication_error', 'not_found', 'too_many_requests', 'model_error']).toContain(
    error.type,
  );
  expect(typeof error.code).toBe('string');
  expect(typeof error.message).toBe('string');
  expect(error.param === null || typeof error.param === 'string').toBe(true);
}

describe('fuzzing the real server', () => {
  test(`HTTP: ${HTTP_RUNS} bodies, no 5xx, every error spec-shaped`, async () => {
    const body = fc.oneof(
      { weight: 5, arbitrary: createBody.map((value) => JSON.stringify(value)) },
      // Only input items, so that every kind of item (and broken encrypted content) reaches the server's own checks.
      {
        weight: 3,
        arbitrary: fc.array(item, { minLength: 1, maxLength: 4 }).map((input) => JSON.stringify({ input })),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
      { weight: 1, arbitrary: fc.nat(300).map((depth) => `{"input":${'['.repeat(depth)}${']'.repeat(depth)}}`) },
    );
    const path = fc.constantFrom('/v1/responses', '/v1/responses', '/v1/responses/compact');
    const contentType = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
      { weight: 1, arbitrary: fc.constantFrom('application/x-www-form-urlencoded', 'text/plain') },
    );
    await fc.assert(
      fc.asyncProperty(body, path, contentType, async (text, target, type) => {
        const response = await fetch(`${server.url}${target}`, {
          method: 'POST',
          headers: { 'content-type': type, authorization: `Bearer ${API_KEY}` },
          body: text,
        });
        const answer = await response.text();
        expect(response.status, answer).toBeLessThan(500);
        if (response.status >= 400) expectSpecError((JSON.parse(answer) as { error: ErrorObject }).error);
        else if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
          expect(answer.trimEnd().endsWith('data: [DONE]')).toBe(true);
      }),
      { numRuns: HTTP_RUNS },
    );
  }, 120_000);

  test(`WebSocket: ${WEBSOCKET_RUNS} messages, no 5xx envelopes, the socket stays open`, async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const inbox: Array<Record<string, unknown>> = [];
    let wake: (() => void) | undefined;
    socket.on('message', (data) => {
      inbox.push(JSON.parse(String(data)) as Record<string, unknown>);
      wake?.();
    });
    const ending = (m: Record<string, unknown>) =>
      m.type === 'error' ||
      m.type === 'response.completed' ||
      m.type === 'response.failed' ||
      m.type === 'response.incomplete';
    const message = fc.oneof(
      { weight: 5, arbitrary: createBody.map((value) => JSON.stringify({ type: 'response.create', ...value })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 100 }) },
    );
    await fc.assert(
      fc.asyncProperty(message, async (text) => {
        inbox.length = 0;
        socket.send(text);
        while (!inbox.some(ending)) await new Promise<void>((resolve) => (wake = resolve));
        for (const m of inbox) {
          if (m.type === 'error') {
            expect(m.status).toBeLessThan(500);
            expectSpecError(m.error as ErrorObject);
          }
          if (m.type === 'response.failed')
            expect((m.response as { error: { code: string } }).error.code).not.toBe('internal_error');
        }
        expect(socket.readyState).toBe(WebSocket.OPEN);
      }),
      { numRuns: WEBSOCKET_RUNS },
    );
    socket.close();
  }, 120_000);
});
