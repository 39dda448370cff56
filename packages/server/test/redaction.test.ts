// The one redactor (src/redaction.ts) on what crosses from an upstream to a client, and the checks on
// upstream values copied into errors: first the functions, then the real CLI in front of the hostile
// upstream (the key in an error's message, param and code; a hostile Retry-After; an upstream's own error
// type), for JSON and streamed requests, the legacy /v1/chat/completions and a WebSocket turn.
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { ResponsesError } from '../src/errors.js';
import {
  errorText,
  MAX_RETRY_AFTER_SECONDS,
  Redactor,
  retryAfterSeconds,
  upstreamRetryHeaders,
} from '../src/redaction.js';
import { type HostileBehaviour, type HostileUpstream, startHostileUpstream } from '../src/testing/index.js';
import { startCli } from './cli-process.js';

const KEY = 'sk-proj-Zq7Xw3Vb9Nm2Lk5Jh8Gf4Ds1Ap6Oi0Uy';

/** Every run of 8 characters of `key` found in `text`. */
const keyRunsIn = (text: string, key = KEY) => {
  const found: string[] = [];
  for (let at = 0; at + 8 <= key.length; at++)
    if (text.includes(key.slice(at, at + 8))) found.push(key.slice(at, at + 8));
  return found;
};

describe('the redactor', () => {
  const redactor = new Redactor([KEY, undefined, 'abcde', 'abc']);

  test('sees a key written with JSON \\u escapes, and leaves text that only mentions an escape as written', () => {
    const escaped = [...KEY]
      .map((c, i) => (i % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c))
      .join('');
    const out = redactor.redact(`{"message":"tool ${escaped} not allowed"}`);
    expect(keyRunsIn(out)).toEqual([]);
    expect(keyRunsIn(JSON.parse(out).message)).toEqual([]);
    expect(out).toContain('[redacted]');
    expect(redactor.redact('write \\u0041 for A')).toBe('write \\u0041 for A');
    // Also an escaped key shape nobody configured.
    expect(new Redactor().redact('sk-\\u0061nt-abcdefghijklmnopqrstuv')).not.toContain('abcdefghijklmnop');
  });

  test('URL credentials: userinfo (user:pass@ or a bare token@) and credential query parameters', () => {
    const out = new Redactor().redact(
      'see https://u:p4ss@h/x, https://ghp_tokentoken@h/y, http://h/v1/traces?token=t0k3n&x=1&sig=s1g&api_key=k3y',
    );
    expect(out).toBe(
      'see https://[redacted]@h/x, https://[redacted]@h/y, http://h/v1/traces?token=[redacted]&x=1&sig=[redacted]&api_key=[redacted]',
    );
  });

  test('removes the key whole, and any run of 8 or more of its characters (prefix, suffix, middle)', () => {
    for (const piece of [KEY, KEY.slice(0, 8), KEY.slice(0, 20), KEY.slice(-9), KEY.slice(5, 30), `${KEY}${KEY}`]) {
      const out = redactor.redact(`before ${piece} after`);
      expect(keyRunsIn(out), piece).toEqual([]);
      expect(out).toMatch(/^before (\[redacted\])+ after$/);
    }
    // Seven characters are not a run: nothing is removed (and a short key only whole).
    expect(redactor.redact(`x${KEY.slice(3, 10)}x`)).toBe(`x${KEY.slice(3, 10)}x`);
    expect(redactor.redact('abcde abcd abc')).toBe('[redacted] abcd abc');
  });

  test('redacts before it cuts: a key across the cut leaves no prefix behind', () => {
    for (const at of [480, 490, 495, 499, 500, 1200, 2100]) {
      const text = `${'x'.repeat(at)}${KEY} tail`;
      const shown = redactor.text(text, 500);
      expect(keyRunsIn(shown), String(at)).toEqual([]);
      expect(shown.length).toBeLessThanOrEqual(501);
    }
    // Only strings are shown; anything else is the fallback.
    expect(redactor.text({ message: KEY }, 500, '(none)')).toBe('(none)');
    expect(redactor.text(42)).toBe('');
  });

  test('removes common secret shapes whatever the configured key', () => {
    const none = new Redactor();
    const samples = [
      'Authorization: Bearer abcdefghijklmnop.qrstuv',
      'key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv',
      'key sk-0123456789abcdefghij',
      'upstream_token_sk-proj-0123456789abcdefghij',
      'x-api-key: 0123456789abcdef',
      'api_key=0123456789abcdef',
      'AKIAABCDEFGHIJKLMNOP',
      'AIzaSyA1234567890abcdefghijklmnopqrstuv',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV',
      'https://user:hunter2hunter2@example.com/v1',
    ];
    for (const sample of samples) expect(none.redact(sample), sample).toContain('[redacted]');
    expect(none.redact('Bearer abcdefghijklmnop')).toBe('Bearer [redacted]');
    expect(none.redact('https://user:pw@example.com/v1')).toBe('https://[redacted]@example.com/v1');
    expect(none.redact('an ordinary message about a skipped field')).toBe('an ordinary message about a skipped field');
    expect(none.redact('see risk-assessment-framework-v2')).toBe('see risk-assessment-framework-v2');
  });

  test('an upstream param is a short field path, or null', () => {
    expect(redactor.param('messages.1.content')).toBe('messages.1.content');
    expect(redactor.param('tools[0].function.name')).toBe('tools[0].function.name');
    for (const bad of [KEY, `x.${KEY.slice(0, 10)}`, { a: 1 }, 3, '', 'has spaces', 'a'.repeat(200), null])
      expect(redactor.param(bad), String(bad)).toBeNull();
  });

  test("a provider's error keeps its type, code, status and headers, with the message redacted and bounded", () => {
    const error = new ResponsesError('too_many_requests', 'rate_limited', `slow ${KEY} ${'y'.repeat(5000)}`, KEY, 429, {
      headers: { 'retry-after': '3' },
    });
    const clean = redactor.error(error);
    expect([clean.type, clean.code, clean.status, clean.headers, clean.param]).toEqual([
      'too_many_requests',
      'rate_limited',
      429,
      { 'retry-after': '3' },
      null,
    ]);
    expect(keyRunsIn(clean.message)).toEqual([]);
    expect(clean.message.length).toBeLessThanOrEqual(1001);
    expect(clean.message.startsWith('slow [redacted] yyy')).toBe(true);
  });

  test('Retry-After: seconds or an HTTP date, clamped to 0..3600; negative, invalid or junk dropped', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterSeconds('3', now)).toBe(3);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('1.2', now)).toBe(2);
    expect(retryAfterSeconds('9'.repeat(12 * 1024), now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('86400', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('Fri, 01 Jan 2027 00:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    for (const bad of ['-5', '-0.5', 'soon', '', '3 seconds', 'x'.repeat(12 * 1024), '1e3', null, undefined])
      expect(retryAfterSeconds(bad, now), String(bad).slice(0, 20)).toBeUndefined();
    const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
    expect(upstreamRetryHeaders(headers({ 'retry-after': '9'.repeat(12 * 1024), 'retry-after-ms': '-5000' }))).toEqual({
      'retry-after': '3600',
    });
    expect(upstreamRetryHeaders(headers({ 'retry-after-ms': '1500.5' }))).toEqual({ 'retry-after-ms': '1501' });
    expect(upstreamRetryHeaders(headers({ 'retry-after-ms': '99999999999' }))).toEqual({ 'retry-after-ms': '3600000' });
    expect(upstreamRetryHeaders(headers({ other: '1' }))).toEqual({});
  });

  test('an error in words is its messages and causes, never its class name', () => {
    const error = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(errorText(error)).toBe('fetch failed: connect ECONNREFUSED 127.0.0.1:9');
    expect(errorText(new TypeError(''))).toBe('no reason given');
    expect(errorText('plain')).toBe('plain');
  });
});

/** The whole HTTP answer (status line, headers, body) as the client received it. */
function rawPost(
  url: string,
  body: unknown,
  endpoint = '/v1/responses',
): Promise<{ status: number; headers: IncomingHttpHeaders; raw: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${url}${endpoint}`);
    const request = httpRequest(
      target,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer client-key' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const head = [`${response.statusCode} ${response.statusMessage}`, ...response.rawHeaders].join('\n');
          resolve({ status: response.statusCode ?? 0, headers: response.headers, raw: `${head}\n\n${text}` });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** The error a client was given: the JSON body's, or the streamed `error` event's. */
function errorOf(raw: string): { type: string; code: string | null; message: string; param: string | null } {
  const body = raw.slice(raw.indexOf('\n\n') + 2);
  if (body.startsWith('{')) return (JSON.parse(body) as { error: ReturnType<typeof errorOf> }).error;
  const event = body
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; error?: ReturnType<typeof errorOf> })
    .find((e) => e.type === 'error');
  if (!event?.error) throw new Error(`no error in ${body.slice(0, 300)}`);
  return event.error;
}

const SPEC_TYPES = ['invalid_request', 'not_found', 'too_many_requests', 'server_error', 'model_error'];

/** Upstream errors whose type, code, param or message are not what a client should see. */
const jsErrors: Record<string, HostileBehaviour> = {
  'js-error-500': {
    description: 'HTTP 500 with a JavaScript error class as its type, an object code and param',
    serve({ response }) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: {
            type: 'TypeError',
            code: { nested: true },
            param: { field: 'x' },
            message: "Cannot read properties of undefined (reading 'choices')",
          },
        }),
      );
    },
  },
  'js-error-400': {
    description: 'HTTP 400 with a JavaScript error class as its type and code, and a field param',
    serve({ response }) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: { type: 'TypeError', code: 'TypeError', param: 'messages.0', message: 'bad role' } }),
        );
    },
  },
  'key-across-cut': {
    description: 'HTTP 400 whose message has the key where a 500-character cut would fall',
    serve({ response }) {
      response
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { type: 'invalid_request_error', message: `${'x'.repeat(490)}${KEY}` } }));
    },
  },
  'key-as-tool-name': {
    description: 'a stream whose model "calls" a tool named like the key (the client offered none such)',
    async serve(exchange) {
      const call = { index: 0, id: 'call_1', type: 'function', function: { name: KEY, arguments: '{}' } };
      if (exchange.body.stream !== true) {
        const message = { role: 'assistant', content: null, tool_calls: [call] };
        const completion = {
          id: 'c',
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
        };
        exchange.response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
        return;
      }
      exchange.response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta: { tool_calls: [call] } }],
      };
      await exchange.write(`data: ${JSON.stringify(chunk)}\n\n`);
      exchange.response.end();
    },
  },
  'key-in-model-ids': {
    description: '`GET /models` lists ids built from the key (verbatim, \\u-escaped, in a URL) beside a plain one',
    serve({ endpoint, response }) {
      const escaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      const body =
        endpoint === '/models'
          ? `{"object":"list","data":[{"id":"plain-model"},{"id":"${KEY}"},{"id":"m-${escaped}"},{"id":"https://u:${KEY.slice(0, 12)}@x"},{"id":"rtl\\u202Eevil"}]}`
          : '{}';
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    },
  },
  'js-error-mid-stream': {
    description: 'a stream that starts, then sends an error chunk typed as a JavaScript error class',
    async serve(exchange) {
      exchange.response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hi' } }] };
      await exchange.write(`data: ${JSON.stringify(chunk)}\n\n`);
      await exchange.write(
        `data: ${JSON.stringify({ error: { type: 'TypeError', code: 500, message: `upstream blew up near ${KEY}` } })}\n\n`,
      );
      exchange.response.end();
    },
  },
};

describe('the gateway (the real CLI) in front of a hostile upstream', () => {
  let upstream: HostileUpstream;
  beforeAll(async () => {
    upstream = await startHostileUpstream({ behaviours: jsErrors });
  });
  afterAll(() => upstream.close());

  /** One CLI per test (cli-process stops it after each), with `KEY` as its upstream key. */
  const gateway = async (upstreamUrl = upstream.baseUrl) =>
    (
      await startCli([
        '--port',
        '0',
        '--api-key',
        'client-key',
        '--chat-completions-url',
        upstreamUrl,
        '--chat-completions-api-key',
        KEY,
        '--chat-completions',
      ])
    ).url;

  test('no run of 8 characters of the key reaches the client; a hostile Retry-After is clamped', async () => {
    const url = await gateway();
    for (const stream of [false, true]) {
      const across = await rawPost(url, { model: 'key-across-cut', input: 'hi', stream });
      expect(across.status).toBe(400);
      expect(keyRunsIn(across.raw), `across the cut, stream: ${stream}`).toEqual([]);
      const answer = await rawPost(url, { model: 'key-in-error', input: 'hi', stream });
      expect(keyRunsIn(answer.raw), `stream: ${stream}`).toEqual([]);
      expect(answer.status).toBe(400);
      const error = errorOf(answer.raw);
      expect(error).toMatchObject({ type: 'invalid_request', code: 'upstream_rejected_request', param: null });
      // Bounded, not dropped: the message still says what the upstream said.
      expect(error.message).toMatch(/^The upstream provider rejected the request \(HTTP 400\): x{400}/);
      expect(error.message.length).toBeLessThan(600);
    }
    // The legacy endpoint passes on the same errors.
    for (const stream of [false, true]) {
      const body = { model: 'key-in-error', messages: [{ role: 'user', content: 'hi' }], stream };
      const answer = await rawPost(url, body, '/v1/chat/completions');
      expect(answer.status, `legacy, stream: ${stream}`).toBe(400);
      expect(keyRunsIn(answer.raw), `legacy, stream: ${stream}`).toEqual([]);
    }
    // And so does a WebSocket turn (its error envelope).
    const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: 'Bearer client-key' },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const envelope = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    socket.send(JSON.stringify({ type: 'response.create', model: 'key-in-error', input: 'hi' }));
    const received = await envelope;
    socket.close();
    expect(JSON.parse(received)).toMatchObject({ type: 'error', error: { code: 'upstream_rejected_request' } });
    expect(keyRunsIn(received)).toEqual([]);
    // The upstream did get the key, and sent it back in its error's message, param and code.
    expect(upstream.served.filter((s) => s.behaviour === 'key-in-error')).toHaveLength(5);

    for (const stream of [false, true]) {
      const answer = await rawPost(url, { model: 'hostile-retry-after', input: 'hi', stream });
      expect(answer.status, `stream: ${stream}`).toBe(429);
      expect(answer.headers['retry-after']).toBe(String(MAX_RETRY_AFTER_SECONDS));
      expect(answer.headers['retry-after-ms']).toBeUndefined();
      expect(answer.raw.length).toBeLessThan(4096);
      expect(errorOf(answer.raw)).toMatchObject({ type: 'too_many_requests', code: 'rate_limited' });
    }
  }, 60_000);

  test('upstream names built from the key: a tool name in tool_not_allowed, model ids in GET /v1/models', async () => {
    const url = await gateway();
    for (const stream of [false, true]) {
      const answer = await rawPost(url, {
        model: 'key-as-tool-name',
        input: 'hi',
        stream,
        tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} } }],
      });
      expect(keyRunsIn(answer.raw), `stream: ${stream}`).toEqual([]);
      expect(answer.raw).toContain('tool_not_allowed');
    }
    const pinned = await gateway(upstream.urlFor('key-in-model-ids'));
    const models = await fetch(`${pinned}/v1/models`, { headers: { authorization: 'Bearer client-key' } });
    const text = await models.text();
    expect(keyRunsIn(text)).toEqual([]);
    expect(keyRunsIn(JSON.stringify(JSON.parse(text)))).toEqual([]);
    // The plain id is listed; the ids holding the key (in any spelling) or a bidi override are left out.
    expect((JSON.parse(text) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toEqual([
      'openresponses-deterministic',
      'plain-model',
    ]);
  }, 60_000);

  test("an upstream's own error type never becomes the error's type or code, and its message stays", async () => {
    const url = await gateway();
    const cases = [
      [
        'js-error-500',
        false,
        500,
        'model_error',
        'upstream_error',
        "Cannot read properties of undefined (reading 'choices')",
      ],
      [
        'js-error-500',
        true,
        500,
        'model_error',
        'upstream_error',
        "Cannot read properties of undefined (reading 'choices')",
      ],
      ['js-error-400', false, 400, 'invalid_request', 'upstream_rejected_request', 'bad role'],
      ['js-error-mid-stream', true, 200, 'model_error', 'upstream_error', 'upstream blew up near [redacted]'],
    ] as const;
    for (const [model, stream, status, type, code, message] of cases) {
      const answer = await rawPost(url, { model, input: 'hi', stream });
      const label = `${model}, stream: ${stream}`;
      expect(answer.status, label).toBe(status);
      const error = errorOf(answer.raw);
      expect(SPEC_TYPES, label).toContain(error.type);
      expect({ type: error.type, code: error.code }, label).toEqual({ type, code });
      expect(answer.raw, label).not.toContain('TypeError');
      expect(error.message, label).toContain(message);
      expect(keyRunsIn(answer.raw), label).toEqual([]);
      expect(error.param, label).toBe(model === 'js-error-400' ? 'messages.0' : null);
    }
  }, 60_000);

  test('an unreachable upstream is described by its cause, not by an error class', async () => {
    const closed = await startHostileUpstream();
    const dead = closed.baseUrl;
    await closed.close();
    const answer = await rawPost(await gateway(dead), { model: 'anything', input: 'hi' });
    const error = errorOf(answer.raw);
    expect({ status: answer.status, type: error.type, code: error.code }).toEqual({
      status: 502,
      type: 'server_error',
      code: 'upstream_unavailable',
    });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(answer.raw).not.toContain('TypeError');
  }, 60_000);
});
