// The real CLI's default log (no --log-format): each turn an upstream fails is one stderr line naming the
// failure's code, status and route, with its message redacted: JSON answers, streams that fail after their
// headers went out and WebSocket turns alike. The upstream's error bodies quote the gateway's key and a
// key-shaped secret; neither may reach the log. Successful turns and client mistakes stay quiet.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startCli } from './cli-process.js';

/** The gateway's key for the upstream: not a common secret shape, so only the route's redactor knows it. */
const UPSTREAM_KEY = 'gwk-7f3a9c1e5b2d8f4a6c0e9d1b';
/** A secret of a common shape that the upstream's words quote. */
const SHAPED_SECRET = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx';
const LEAK = `the key ${UPSTREAM_KEY} (and ${SHAPED_SECRET}) is not allowed here`;

let upstream: Server;
let upstreamUrl: string;
beforeAll(async () => {
  // A Chat Completions upstream that fails by the model asked for.
  upstream = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [] }));
        return;
      }
      const model = (JSON.parse(body) as { model: string }).model;
      if (model === 'fails-json' || model === 'fails-auth') {
        response.writeHead(model === 'fails-auth' ? 401 : 500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: LEAK } }));
        return;
      }
      // fails-streaming: a first delta (the gateway's SSE headers go out), then an error chunk.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      response.write(chunk({ role: 'assistant', content: 'Hello' }));
      setTimeout(
        () => response.end(`data: ${JSON.stringify({ error: { message: LEAK, code: 'overloaded' } })}\n\n`),
        100,
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  upstream.closeAllConnections();
  upstream.close();
});

/** The CLI with the failing upstream as its catch-all, and everything it prints after its banner. */
async function gateway(extra: string[] = []) {
  const { url, child } = await startCli([
    '--port',
    '0',
    '--api-key',
    'k',
    '--chat-completions-url',
    upstreamUrl,
    '--chat-completions-api-key',
    UPSTREAM_KEY,
    ...extra,
  ]);
  const printed = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => {
    printed.stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    printed.stderr += chunk.toString();
  });
  const post = (body: object) =>
    fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify(body),
    });
  return { url, printed, post };
}

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);
const expectNoSecret = (text: string) => {
  expect(text).not.toContain(UPSTREAM_KEY);
  // No piece of either secret survives (a prefix cut by a truncation would be one).
  expect(text).not.toContain(UPSTREAM_KEY.slice(0, 12));
  expect(text).not.toContain(SHAPED_SECRET.slice(0, 12));
};

describe('the default log prints failed turns on stderr', () => {
  test('JSON, streamed, refused key and WebSocket failures: one redacted line each; successes and client errors stay quiet', async () => {
    const { url, printed, post } = await gateway();

    // A successful turn (the embedded model) and a client's mistake print nothing.
    expect((await post({ input: 'hi' })).status).toBe(200);
    expect((await post({ input: 'hi', temperature: 'hot' })).status).toBe(400);

    // The upstream fails a JSON turn: 500 model_error, the upstream's words redacted.
    const failed = await post({ model: 'fails-json', input: 'hi' });
    expect(failed.status).toBe(500);
    const { error } = await failed.json();
    expect(error.code).toBe('upstream_error');
    await expect.poll(() => lines(printed.stderr).length).toBe(1);
    const jsonLine = lines(printed.stderr)[0]!;
    expect(jsonLine).toMatch(/ POST \/v1\/responses 500 [\d.]+ ms req_\S+ model=fails-json /);
    expect(jsonLine).toContain('failed=upstream_error status=500 type=model_error provider=chat-completions');
    expect(jsonLine).toContain('message="The upstream model failed (HTTP 500): the key [redacted]');
    expectNoSecret(jsonLine);

    // A stream that fails after its headers went out: answered 200, the line names the failure.
    const streamed = await post({ model: 'fails-streaming', input: 'hi', stream: true });
    expect(streamed.status).toBe(200);
    const events = await streamed.text();
    expect(events).toContain('response.output_text.delta');
    expect(events).toContain('response.failed');
    await expect.poll(() => lines(printed.stderr).length).toBe(2);
    const streamLine = lines(printed.stderr)[1]!;
    expect(streamLine).toMatch(/ POST \/v1\/responses 200 [\d.]+ ms req_\S+ model=fails-streaming /);
    expect(streamLine).toContain('failed=upstream_error status=500 type=model_error provider=chat-completions');
    expectNoSecret(streamLine);

    // The upstream refuses the gateway's key.
    expect((await post({ model: 'fails-auth', input: 'hi' })).status).toBe(500);
    await expect.poll(() => lines(printed.stderr).length).toBe(3);
    expect(lines(printed.stderr)[2]).toContain('failed=upstream_authentication_failed status=500 type=server_error');

    // A WebSocket turn.
    const socket = new WebSocket(`${url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: 'Bearer k' },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const answered = new Promise<string>((resolve) => socket.on('message', (data) => resolve(String(data))));
    socket.send(JSON.stringify({ type: 'response.create', model: 'fails-json', input: 'hi' }));
    expect(JSON.parse(await answered)).toMatchObject({ type: 'error' });
    socket.close();
    await expect.poll(() => lines(printed.stderr).length).toBe(4);
    const socketLine = lines(printed.stderr)[3]!;
    expect(socketLine).toMatch(/ response\.create \/v1\/responses 500 [\d.]+ ms req_\S+ model=fails-json /);
    expect(socketLine).toContain('failed=upstream_error status=500');
    expectNoSecret(socketLine);

    // Nothing else was printed: no line for the success or the 400, nothing on stdout after the banner.
    expect(lines(printed.stderr)).toHaveLength(4);
    expect(printed.stdout).toBe('');
    expectNoSecret(printed.stderr);
  });

  test('background turns: one line each, once, whether they fail before their answer, after it, or after the client left', async () => {
    const { url, printed, post } = await gateway();
    const get = async (id: string) =>
      (await (await fetch(`${url}/v1/responses/${id}`, { headers: { authorization: 'Bearer k' } })).json()) as {
        status: string;
        error: { code: string } | null;
      };

    // Answered 200 with its starting snapshot, then failing (the embedded model's failure trigger): the
    // turn's own line once it has ended, with the method, path and request id of the request that started it.
    const started = await post({ input: 'hi [fail]', background: true });
    expect(started.status).toBe(200);
    const requestId = started.headers.get('x-request-id');
    const { id, status } = await started.json();
    expect(status).not.toBe('failed');
    await expect.poll(async () => (await get(id)).status).toBe('failed');
    expect((await get(id)).error?.code).toBe('model_failed');
    await expect.poll(() => lines(printed.stderr).length).toBe(1);
    const line = lines(printed.stderr)[0]!;
    expect(line).toMatch(
      / POST \/v1\/responses 200 [\d.]+ ms req_\S+ model=\S+ (tokens=\S+ )?background=true failed=model_failed status=500 type=model_error provider=deterministic /,
    );
    expect(line).toContain(` ${requestId} `);

    // The upstream fails before the first event: the request is answered with the error, its line tells it.
    const refused = await post({ model: 'fails-json', input: 'hi', background: true });
    expect(refused.status).toBe(500);
    expect((await refused.json()).error.code).toBe('upstream_error');
    await expect.poll(() => lines(printed.stderr).length).toBe(2);
    const refusedLine = lines(printed.stderr)[1]!;
    expect(refusedLine).toMatch(
      / POST \/v1\/responses 500 [\d.]+ ms req_\S+ model=fails-json failed=upstream_error status=500 type=model_error provider=chat-completions /,
    );
    expect(refusedLine).toContain('message="The upstream model failed (HTTP 500): the key [redacted]');

    // A streamed background turn whose client leaves after the first delta; the upstream fails afterwards.
    const leaving = new AbortController();
    const streamed = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'fails-streaming', input: 'hi', background: true, stream: true }),
      signal: leaving.signal,
    });
    expect(streamed.status).toBe(200);
    const reader = streamed.body!.getReader();
    let seen = '';
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value);
    const streamedId = /"id":"(resp_[^"]+)"/.exec(seen)![1]!;
    leaving.abort();
    await expect.poll(async () => (await get(streamedId)).status).toBe('failed');
    await expect.poll(() => lines(printed.stderr).length).toBe(3);
    const streamedLine = lines(printed.stderr)[2]!;
    expect(streamedLine).toMatch(
      / POST \/v1\/responses 200 [\d.]+ ms req_\S+ model=fails-streaming (tokens=\S+ )?failed=upstream_error status=500 type=model_error provider=chat-completions /,
    );
    expect(streamedLine).toContain('message="The upstream model failed mid-stream: the key [redacted]');

    // A background turn that succeeds prints nothing; nothing else was printed, no piece of a secret.
    const done = await post({ input: 'hi', background: true });
    const doneId = (await done.json()).id;
    await expect.poll(async () => (await get(doneId)).status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(lines(printed.stderr)).toHaveLength(3);
    expect(printed.stdout).toBe('');
    expectNoSecret(printed.stderr);
  });

  test('--log-format json: every request on stdout, the failed turn with its failure', async () => {
    const { printed, post } = await gateway(['--log-format', 'json']);
    expect((await post({ input: 'hi' })).status).toBe(200);
    expect((await post({ model: 'fails-json', input: 'hi' })).status).toBe(500);
    await expect.poll(() => lines(printed.stdout).length).toBe(2);
    const [ok, failed] = lines(printed.stdout).map((line) => JSON.parse(line));
    expect(ok.failure).toBeUndefined();
    expect(failed).toMatchObject({
      status: 500,
      model: 'fails-json',
      failure: { type: 'model_error', code: 'upstream_error', status: 500, provider: 'chat-completions' },
    });
    expect(failed.failure.message).toContain('[redacted]');

    // A background turn: its request's line (answered 200, no turn facts yet), then the turn's own once it failed.
    const started = await post({ input: 'hi [fail]', background: true });
    expect(started.status).toBe(200);
    await expect.poll(() => lines(printed.stdout).length).toBe(4);
    const [answer, turn] = lines(printed.stdout)
      .slice(2)
      .map((line) => JSON.parse(line));
    expect(answer).toMatchObject({ method: 'POST', status: 200, requestId: started.headers.get('x-request-id') });
    expect(answer.failure).toBeUndefined();
    expect(answer.background).toBeUndefined();
    expect(turn).toMatchObject({
      method: 'POST',
      path: '/v1/responses',
      status: 200,
      requestId: started.headers.get('x-request-id'),
      background: true,
      failure: { type: 'model_error', code: 'model_failed', status: 500, provider: 'deterministic' },
    });
    expectNoSecret(printed.stdout);
    expect(printed.stderr).toBe('');
  });
});
