// Every bad input gets the spec's error object with the right status and param, over raw HTTP.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, post, startTestServer } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => server.close());

async function expectError(
  response: Response,
  status: number,
  expected: { type: string; code: string; param?: string | null },
) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error).toMatchObject({
    type: expected.type,
    code: expected.code,
    ...(expected.param !== undefined ? { param: expected.param } : {}),
  });
  expect(String(body.error.message).length).toBeGreaterThan(10);
}

describe('bad inputs over HTTP', () => {
  test('malformed JSON -> 400 invalid_json', async () => {
    await expectError(await post(server, '/v1/responses', '{"input": "unterminated'), 400, {
      type: 'invalid_request',
      code: 'invalid_json',
    });
  });
  test('wrong content type -> 415', async () => {
    await expectError(await post(server, '/v1/responses', 'input=hi', { 'content-type': 'text/plain' }), 415, {
      type: 'invalid_request',
      code: 'unsupported_media_type',
    });
  });
  test('oversize body -> 413', async () => {
    await expectError(await post(server, '/v1/responses', { input: 'x'.repeat(70 * 1024) }), 413, {
      type: 'invalid_request',
      code: 'request_too_large',
    });
  });
  test('a bad field names its param', async () => {
    await expectError(await post(server, '/v1/responses', { input: 'hi', temperature: 'hot' }), 400, {
      type: 'invalid_request',
      code: 'invalid_value',
      param: 'temperature',
    });
    await expectError(
      await post(server, '/v1/responses', {
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text' }] }],
      }),
      400,
      { type: 'invalid_request', code: 'invalid_value', param: 'input[0].content[0].text' },
    );
    await expectError(await post(server, '/v1/responses', { input: [{ type: 'telepathy', id: 'x' }] }), 400, {
      type: 'invalid_request',
      code: 'invalid_value',
      param: 'input[0].type',
    });
  });
  test('unknown previous_response_id -> 404 previous_response_not_found', async () => {
    await expectError(await post(server, '/v1/responses', { input: 'hi', previous_response_id: 'resp_nope' }), 404, {
      type: 'not_found',
      code: 'previous_response_not_found',
      param: 'previous_response_id',
    });
  });
  test('item_reference to an unknown item -> 404 naming the item', async () => {
    await expectError(
      await post(server, '/v1/responses', { input: [{ type: 'item_reference', id: 'msg_nope' }] }),
      404,
      { type: 'not_found', code: 'item_not_found', param: 'input[0].id' },
    );
  });
  test('item_reference to a stored item resolves', async () => {
    const first = (await (await post(server, '/v1/responses', { input: 'My name is Kay.' })).json()) as {
      output: Array<{ id: string }>;
    };
    const listed = (await (
      await fetch(`${server.url}/v1/responses/${(first as unknown as { id: string }).id}/input_items`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      })
    ).json()) as { data: Array<{ id: string }> };
    const response = await post(server, '/v1/responses', {
      input: [
        { type: 'item_reference', id: listed.data[0]!.id },
        { type: 'item_reference', id: first.output[0]!.id },
        { role: 'user', content: 'What is my name?' },
      ],
    });
    expect(response.status).toBe(200);
    expect(
      ((await response.json()) as { output: Array<{ content: Array<{ text: string }> }> }).output[0]!.content[0]!.text,
    ).toBe('Your name is Kay.');
  });
  test('missing or wrong key -> 401', async () => {
    await expectError(await post(server, '/v1/responses', { input: 'hi' }, { authorization: 'Bearer wrong' }), 401, {
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
    const none = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await expectError(none, 401, { type: 'authentication_error', code: 'invalid_api_key' });
  });
  test('unknown OpenResponses-Version -> 400', async () => {
    await expectError(
      await post(server, '/v1/responses', { input: 'hi' }, { 'openresponses-version': '2099-01-01' }),
      400,
      { type: 'invalid_request', code: 'unsupported_version' },
    );
  });
  test('OpenResponses-Version selects the schema: compaction items are not in 2026-01-15', async () => {
    const body = { input: [{ type: 'compaction', encrypted_content: 'x' }] };
    await expectError(await post(server, '/v1/responses', body, { 'openresponses-version': '2026-01-15' }), 400, {
      type: 'invalid_request',
      code: 'invalid_value',
      param: 'input[0].type',
    });
    await expectError(await post(server, '/v1/responses', body), 400, {
      type: 'invalid_request',
      code: 'invalid_encrypted_content',
      param: 'input[0].encrypted_content',
    });
  });
  test('tool_choice naming a missing tool names the param', async () => {
    await expectError(
      await post(server, '/v1/responses', {
        input: 'hi',
        tools: [{ type: 'function', name: 'a' }],
        tool_choice: { type: 'function', name: 'b' },
      }),
      400,
      { type: 'invalid_request', code: 'unknown_tool', param: 'tool_choice.name' },
    );
  });
  test('unknown model -> 400 model_not_found', async () => {
    await expectError(await post(server, '/v1/responses', { model: 'gpt-nope', input: 'hi' }), 400, {
      type: 'invalid_request',
      code: 'model_not_found',
      param: 'model',
    });
  });
  test('unknown routes and methods', async () => {
    await expectError(
      await fetch(`${server.url}/v1/nothing`, { headers: { authorization: `Bearer ${API_KEY}` } }),
      404,
      { type: 'not_found', code: 'unknown_path' },
    );
    await expectError(
      await fetch(`${server.url}/v1/responses`, { headers: { authorization: `Bearer ${API_KEY}` } }),
      405,
      { type: 'invalid_request', code: 'method_not_allowed' },
    );
    await expectError(
      await fetch(`${server.url}/v1/responses/resp_nope`, { headers: { authorization: `Bearer ${API_KEY}` } }),
      404,
      { type: 'not_found', code: 'response_not_found' },
    );
  });
  test('compaction without model -> 400 naming model', async () => {
    await expectError(await post(server, '/v1/responses/compact', { input: 'hi' }), 400, {
      type: 'invalid_request',
      code: 'missing_required_parameter',
      param: 'model',
    });
  });
  test('truncation disabled and a context over the window -> 400 context_length_exceeded', async () => {
    const small = await startTestServer({
      providers: [new (await import('../src/index.js')).DeterministicModel({ contextWindow: 20 })],
    });
    try {
      const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
      await expectError(await post(small, '/v1/responses', { input: words, truncation: 'disabled' }), 400, {
        type: 'invalid_request',
        code: 'context_length_exceeded',
        param: 'input',
      });
      const auto = await post(small, '/v1/responses', {
        input: [
          { role: 'user', content: words },
          { role: 'user', content: 'short' },
        ],
        truncation: 'auto',
      });
      expect(auto.status).toBe(200);
    } finally {
      await small.close();
    }
  });
  test('application/x-www-form-urlencoded bodies are accepted', async () => {
    const response = await post(
      server,
      '/v1/responses',
      new URLSearchParams({
        model: 'openresponses-deterministic',
        input: 'form hello',
        max_output_tokens: '50',
      }).toString(),
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { max_output_tokens: number }).max_output_tokens).toBe(50);
  });
});
