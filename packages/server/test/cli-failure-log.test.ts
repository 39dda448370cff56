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
    expectNoSecret(printed.stdout);
    expect(printed.stderr).toBe('');
  });
});
