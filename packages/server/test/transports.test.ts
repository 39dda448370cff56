// The two transports over the same service: the fetch-style handler (web Request/Response, as a gateway
// mounts it) and the Node entry (node:http directly). Same answers, same errors, and a client that goes
// away mid-stream stops the turn on both.
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkStream, decodeSSE, type AnyStreamingEvent } from '@openresponses/events';
import { createResponsesHandler, type Cancellation, type ModelProvider } from '../src/index.js';
import { toNodeListener, type RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

const handler = createResponsesHandler({ apiKeys: [API_KEY], validateOutgoing: true, maxBodyBytes: 4096 });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` };
const request = (
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
) =>
  new Request(`http://gateway.test${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { ...headers, ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    signal: init.signal,
  });

/** Reads events until `until` says stop, then cancels the rest of the body. */
async function readUntil(
  body: ReadableStream<Uint8Array>,
  until: (event: AnyStreamingEvent) => boolean,
): Promise<AnyStreamingEvent[]> {
  const events: AnyStreamingEvent[] = [];
  for await (const event of decodeSSE(body)) {
    events.push(event);
    if (until(event)) break; // leaving the loop cancels the body
  }
  return events;
}

async function storedStatus(fetchStored: () => Promise<Response>, wanted: string): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const response = await fetchStored();
    if (response.status === 200) {
      const stored = (await response.json()) as Record<string, unknown>;
      if (stored.status === wanted) return stored;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the response never reached status ${wanted}`);
}

describe('the fetch-style handler', () => {
  test('answers JSON and streams SSE that passes the checker', async () => {
    const json = await handler(request('/v1/responses', { body: { input: 'Hello! My name is Ada.' } }));
    expect(json.status).toBe(200);
    const response = (await json.json()) as { status: string; output: Array<{ content: Array<{ text: string }> }> };
    expect(response.status).toBe('completed');
    expect(response.output[0]!.content[0]!.text).toContain('My name is Ada');

    const streamed = await handler(request('/v1/responses', { body: { input: 'Hello again', stream: true } }));
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const decoded = decodeSSE(streamed.body!);
    const events: AnyStreamingEvent[] = [];
    for await (const event of decoded) events.push(event);
    expect(decoded.sawDone).toBe(true);
    expect(checkStream(events, { sawDone: true })).toEqual([]);
    expect(events.at(-1)!.type).toBe('response.completed');
  });

  test('bad inputs get the spec error object and status', async () => {
    const cases: Array<[Request, number, string]> = [
      [request('/v1/responses', { body: 'x'.repeat(5000) }), 413, 'request_too_large'],
      [
        request('/v1/responses', { body: 'input=hi', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      ],
      [
        request('/v1/responses', { body: { input: 'hi' }, headers: { authorization: 'Bearer wrong' } }),
        401,
        'invalid_api_key',
      ],
      [request('/v1/responses', { method: 'GET' }), 405, 'method_not_allowed'],
      [request('/v1/responses/resp_missing'), 404, 'response_not_found'],
    ];
    for (const [input, status, code] of cases) {
      const response = await handler(input);
      expect(response.status, code).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    }
  });

  test('cancelling the response stream stops the turn (stored as failed: cancelled)', async () => {
    const response = await handler(
      request('/v1/responses', { body: { input: 'Tell me a long story [long] [slow]', stream: true } }),
    );
    const events = await readUntil(response.body!, (event) => event.type === 'response.output_text.delta');
    const id = (events[0] as { response: { id: string } }).response.id;
    const stored = await storedStatus(() => handler(request(`/v1/responses/${id}`)), 'failed');
    expect(stored.error).toMatchObject({ code: 'cancelled' });
    expect(
      (stored.output as Array<{ content: Array<{ text: string }> }>)[0]!.content[0]!.text.split(' ').length,
    ).toBeLessThan(200);
  });

  test('served by node:http through toNodeListener: JSON, SSE and errors arrive unchanged', async () => {
    const server: Server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const json = await fetch(`${base}/v1/responses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: 'Hi there' }),
      });
      expect(((await json.json()) as { status: string }).status).toBe('completed');
      const streamed = await fetch(`${base}/v1/responses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ input: 'Hi there', stream: true }),
      });
      const decoded = decodeSSE(streamed.body!);
      const events: AnyStreamingEvent[] = [];
      for await (const event of decoded) events.push(event);
      expect(checkStream(events, { sawDone: decoded.sawDone })).toEqual([]);
      const tooLarge = await fetch(`${base}/v1/responses`, { method: 'POST', headers, body: 'x'.repeat(5000) });
      expect(tooLarge.status).toBe(413);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the Node entry', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  test('a client that disconnects mid-stream stops the turn (stored as failed: cancelled)', async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/v1/responses`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: 'Tell me a long story [long] [slow]', stream: true }),
      signal: abort.signal,
    });
    const events = await readUntil(response.body!, (event) => event.type === 'response.output_text.delta');
    abort.abort();
    const id = (events[0] as { response: { id: string } }).response.id;
    const stored = await storedStatus(() => fetch(`${server.url}/v1/responses/${id}`, { headers }), 'failed');
    expect(stored.error).toMatchObject({ code: 'cancelled' });
  });

  test('a provider that waits on request.signal sees it abort when the client disconnects', async () => {
    let seen: AbortSignal | undefined;
    const waiting: ModelProvider = {
      name: 'waiting',
      contextWindow: 1000,
      supports: (model) => model === 'waiting-model',
      async *generate(request) {
        seen = request.signal;
        yield { type: 'vendor-event', event: { type: 'acme:started' } };
        await new Promise((resolve) => seen!.addEventListener('abort', resolve, { once: true }));
      },
    };
    const own = await startTestServer({ providers: [waiting] });
    try {
      const abort = new AbortController();
      const response = await fetch(`${own.url}/v1/responses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'waiting-model', input: 'Hi', stream: true }),
        signal: abort.signal,
      });
      await readUntil(response.body!, (event) => event.type === 'acme:started');
      expect(seen?.aborted).toBe(false);
      abort.abort();
      for (let attempt = 0; attempt < 100 && !seen!.aborted; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen!.aborted).toBe(true);
    } finally {
      await own.close();
    }
  });

  test('a body is read as UTF-8 whatever its chunks: ASCII, characters split between chunks, invalid bytes', async () => {
    const texts = ['plain ASCII words', 'é 日本 😀 mixed', `${'a'.repeat(70_000)} long ASCII then ü`];
    const bodies = texts.map((text) => Buffer.from(JSON.stringify({ input: text })));
    // A lone continuation byte and a cut-off sequence inside the JSON string: replaced by U+FFFD, as toString('utf8') does.
    bodies.push(
      Buffer.concat([Buffer.from('{"input":"bad '), Buffer.from([0x80, 0x20, 0xe6, 0x97]), Buffer.from('"}')]),
    );
    for (const body of bodies) {
      const expected = (JSON.parse(body.toString('utf8')) as { input: string }).input;
      // Chunks of 3 bytes: every multi-byte character of the second text is split.
      const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpRequest(`${server.url}/v1/responses`, { method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>));
        });
        req.on('error', reject);
        (async () => {
          for (let at = 0; at < Math.min(body.length, 300); at += 3) {
            req.write(body.subarray(at, at + 3));
            await new Promise((resolve) => setImmediate(resolve));
          }
          req.end(body.subarray(300));
        })().catch(reject);
      });
      const items = (await (
        await fetch(`${server.url}/v1/responses/${String(answer.id)}/input_items`, { headers })
      ).json()) as { data: Array<{ content: Array<{ text: string }> }> };
      expect(items.data[0]!.content[0]!.text).toBe(expected);
    }
  });

  test('bodies read at once, in chunks side by side, and past the joining buffer each keep their own bytes', async () => {
    /** Posts `text` as the input, in `chunk`-byte writes a tick apart (the whole body at once when 0); its stored input text. */
    const roundTrip = async (text: string, chunk: number) => {
      const body = Buffer.from(JSON.stringify({ input: text }));
      const answer = await new Promise<{ id: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}/v1/responses`, { method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (part: Buffer) => chunks.push(part));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }));
        });
        req.on('error', reject);
        (async () => {
          for (let at = 0; chunk > 0 && at < body.length; at += chunk) {
            req.write(body.subarray(at, at + chunk));
            await new Promise((resolve) => setImmediate(resolve));
          }
          req.end(chunk > 0 ? undefined : body);
        })().catch(reject);
      });
      const items = (await (
        await fetch(`${server.url}/v1/responses/${answer.id}/input_items`, { headers })
      ).json()) as { data: Array<{ content: Array<{ text: string }> }> };
      return items.data[0]!.content[0]!.text;
    };
    const texts = ['a'.repeat(200_000), 'b'.repeat(150_000), `${'ü'.repeat(90_000)} c`, 'd'.repeat(5 * 1024 * 1024)];
    const stored = await Promise.all([
      roundTrip(texts[0]!, 16 * 1024),
      roundTrip(texts[1]!, 20_000),
      roundTrip(texts[2]!, 7_001),
      // Over the joining buffer's size (4 MiB): a buffer of its own.
      roundTrip(texts[3]!, 256 * 1024),
      roundTrip('sent whole', 0),
    ]);
    expect(stored).toEqual([...texts, 'sent whole']);
  });

  test('a connection stays open after a body read whole, and its next request reuses it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ input: 'Hi' });
    try {
      for (const round of [0, 1, 2]) {
        const { connection, reused } = await new Promise<{ connection?: string; reused: boolean }>(
          (resolve, reject) => {
            const req = httpRequest(
              `${server.url}/v1/responses`,
              { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
              (res) => {
                res.resume();
                res.on('end', () => resolve({ connection: res.headers.connection, reused: req.reusedSocket }));
              },
            );
            req.on('error', reject);
            req.end(body);
          },
        );
        expect(connection).toBe('keep-alive');
        expect(reused).toBe(round > 0);
      }
    } finally {
      agent.destroy();
    }
  });

  test('a handler that only polls its cancellation sees the client leave; one told after that is told at once', async () => {
    let report: (seen: { polled: boolean; told: boolean; aborted: boolean }) => void;
    const seen = new Promise<{ polled: boolean; told: boolean; aborted: boolean }>((resolve) => (report = resolve));
    let answered: Cancellation | undefined;
    const own: Server = createServer(
      toNodeListener({
        handle: async (request) => {
          const cancellation = request.cancellation!;
          if (request.path === '/answer') {
            answered = cancellation;
            return { status: 200, headers: {}, body: 'answered' };
          }
          for (let wait = 0; wait < 500 && !cancellation.cancelled; wait++)
            await new Promise((resolve) => setTimeout(resolve, 10));
          const polled = cancellation.cancelled;
          let told = false;
          cancellation.onCancel(() => {
            told = true;
          });
          report({ polled, told, aborted: cancellation.signal.aborted });
          return { status: 200, headers: {}, body: 'too late' };
        },
      }),
    );
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
    try {
      // An answered request was not cancelled, though Node marks its response destroyed once it has finished.
      expect(await (await fetch(`${base}/answer`)).text()).toBe('answered');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(answered?.cancelled).toBe(false);
      const abort = new AbortController();
      const leaving = fetch(`${base}/wait`, { signal: abort.signal }).catch(() => 'left');
      await new Promise((resolve) => setTimeout(resolve, 50));
      abort.abort();
      expect(await leaving).toBe('left');
      expect(await seen).toEqual({ polled: true, told: true, aborted: true });
    } finally {
      own.closeAllConnections();
      await new Promise((resolve) => own.close(resolve));
    }
  });

  test('a query string does not change the route', async () => {
    const response = await fetch(`${server.url}/v1/responses?trace=1`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input: 'Hi' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String((await response.arrayBuffer()).byteLength));
  });
});
