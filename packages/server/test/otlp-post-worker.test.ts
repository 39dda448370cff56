// OTLP POSTs in a worker thread (node/otlp-post-worker.ts' OtlpPoster) against real HTTP receivers on 127.0.0.1: the
// bytes and headers arrive and the body comes back (a view into a larger buffer is copied, not moved); the request's
// head (headers merged by name, credentials from the URL); a failure answers its reason; the worker's stdio is not
// piped into the process's; the worker stopped mid-request fails that request and the next one starts another; a
// collector slow past the timeout fails the request and the worker stays; close with a hung collector ends the request
// and the worker; a worker started early serves the first request and close ends it. The requests themselves
// (retries, bounds) are otlpRequests', tested through the span export (otlp-span-export.test.ts).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { type OtlpPost, OtlpPoster } from '../src/node/otlp-post-worker.js';

const servers: Server[] = [];
const posters: OtlpPoster[] = [];
afterEach(async () => {
  for (const poster of posters.splice(0)) await poster.close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An HTTP server on a free port answering every request with `answer`. */
async function receiverAnswering(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<URL> {
  const server = createServer(answer);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`);
}

const newPoster = () => {
  const poster = new OtlpPoster();
  posters.push(poster);
  return poster;
};
/** The poster's worker thread (a private field), undefined before its first request and after it stopped. */
const workerOf = (poster: OtlpPoster) => (poster as unknown as { worker: Worker | undefined }).worker;
const request = (url: URL, changes: Partial<OtlpPost> = {}): OtlpPost => ({
  url,
  headers: { 'x-collector-key': 'k' },
  body: new Uint8Array([1, 2, 3, 4]),
  timeoutMs: 5000,
  ...changes,
});

test('the bytes and headers arrive, sent from another thread; the body is handed back', async () => {
  const seen: Array<{ path?: string; key?: string; type?: string; body: number[] }> = [];
  const url = await receiverAnswering((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        path: req.url,
        key: req.headers['x-collector-key'] as string,
        type: req.headers['content-type'],
        body: [...Buffer.concat(chunks)],
      });
      res.end();
    });
  });
  const started: unknown[] = [];
  const onStart = (message: unknown) => started.push(message);
  subscribe('http.client.request.start', onStart);
  try {
    const poster = newPoster();
    const sent = request(url);
    const answer = await poster.post(sent);
    expect(answer.failure).toBeUndefined();
    expect([...answer.body!]).toEqual([1, 2, 3, 4]);
    // The body's buffer went to the worker: the sender's view of it is empty until handed back.
    expect(sent.body.byteLength).toBe(0);
    expect(seen).toEqual([{ path: '/v1/metrics', key: 'k', type: 'application/x-protobuf', body: [1, 2, 3, 4] }]);
    expect(started.length).toBe(0);
  } finally {
    unsubscribe('http.client.request.start', onStart);
  }
});

test("the request's head: the exporter's headers (names case-insensitive, the last one given wins), then the body's type and length; credentials in the URL go as Basic authorization", async () => {
  const heads: IncomingMessage['headers'][] = [];
  const url = await receiverAnswering((req, res) => {
    heads.push(req.headers);
    req.resume().on('end', () => res.end());
  });
  const poster = newPoster();
  const headers = { 'X-Key': 'a', 'x-key': 'b', 'Content-Type': 'text/plain' };
  expect((await poster.post(request(url, { headers }))).failure).toBeUndefined();
  const withCredentials = new URL(url);
  withCredentials.username = 'user';
  withCredentials.password = 'p@ss';
  expect((await poster.post(request(withCredentials))).failure).toBeUndefined();
  expect(heads[0]).toMatchObject({
    host: url.host,
    'x-key': 'b',
    'content-type': 'application/x-protobuf',
    'content-length': '4',
  });
  expect(heads[1]).toMatchObject({
    authorization: `Basic ${Buffer.from('user:p@ss').toString('base64')}`,
    'x-collector-key': 'k',
    'content-length': '4',
  });
});

test('a body viewing part of a larger buffer is copied, not moved: the rest of that buffer stays readable', async () => {
  const received: number[][] = [];
  const url = await receiverAnswering((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push([...Buffer.concat(chunks)]);
      res.end();
    });
  });
  const backing = new Uint8Array([9, 9, 1, 2, 3, 4, 9, 9]);
  const answer = await newPoster().post(request(url, { body: backing.subarray(2, 6) }));
  expect(answer.failure).toBeUndefined();
  expect(received).toEqual([[1, 2, 3, 4]]);
  expect([...backing]).toEqual([9, 9, 1, 2, 3, 4, 9, 9]);
});

test('a failed request answers its reason (after the retries the timeout allows)', async () => {
  const url = await receiverAnswering((req, res) => req.resume().on('end', () => res.writeHead(400).end()));
  const answer = await newPoster().post(request(url));
  expect(answer.failure).toBe('HTTP 400');
  expect([...answer.body!]).toEqual([1, 2, 3, 4]);
});

test("the worker's stdout and stderr are not piped into the process's: their streams never flow", async () => {
  // Piped, they ran Node's stream functions on the worker's stdio streams, which deoptimised the turns' own uses.
  const url = await receiverAnswering((req, res) => req.resume().on('end', () => res.end()));
  const poster = newPoster();
  expect((await poster.post(request(url))).failure).toBeUndefined();
  const worker = workerOf(poster)!;
  expect(worker.stdout.readableFlowing).toBeNull();
  expect(worker.stderr.readableFlowing).toBeNull();
});

test('the worker stopped mid-request: that request fails, the next goes on a new worker', async () => {
  let hold = true;
  let received = 0;
  const url = await receiverAnswering((req, res) => {
    received++;
    if (!hold) req.resume().on('end', () => res.end());
  });
  const poster = newPoster();
  const held = poster.post(request(url));
  await expect.poll(() => received).toBe(1);
  const first = workerOf(poster)!;
  await first.terminate();
  const answer = await held;
  expect(answer.failure).toMatch(/^the export worker stopped/);
  expect(answer.body).toBeUndefined();
  hold = false;
  expect((await poster.post(request(url))).failure).toBeUndefined();
  expect(workerOf(poster)).not.toBe(first);
});

test('a collector slow past the timeout fails the request in the worker, which stays for the next', async () => {
  let slow = true;
  const url = await receiverAnswering((req, res) => {
    const late = slow;
    req.resume().on('end', () => (late ? setTimeout(() => res.end(), 1500) : res.end()));
  });
  const poster = newPoster();
  expect((await poster.post(request(url, { timeoutMs: 300 }))).failure).toBe('no answer within 300 ms');
  const worker = workerOf(poster);
  slow = false;
  expect((await poster.post(request(url, { timeoutMs: 300 }))).failure).toBeUndefined();
  expect(workerOf(poster)).toBe(worker);
});

test('close with a hung collector: the request in flight fails at once, the worker ends, later requests fail', async () => {
  const url = await receiverAnswering(() => {});
  const poster = newPoster();
  const held = poster.post(request(url, { timeoutMs: 60_000 }));
  const exited = once(workerOf(poster)!, 'exit');
  await poster.close();
  expect((await held).failure).toBe('the export was shut down');
  await exited;
  expect(workerOf(poster)).toBeUndefined();
  expect((await poster.post(request(url))).failure).toBe('the export was shut down');
});

test('started early: the worker is up before any request, the first request goes on it, close ends it', async () => {
  const url = await receiverAnswering((req, res) => req.resume().on('end', () => res.end()));
  const poster = newPoster();
  expect(workerOf(poster)).toBeUndefined();
  poster.startEarly();
  const early = workerOf(poster)!;
  expect(early).toBeDefined();
  await once(early, 'online');
  poster.startEarly();
  expect(workerOf(poster)).toBe(early);
  expect((await poster.post(request(url))).failure).toBeUndefined();
  expect(workerOf(poster)).toBe(early);
  const exited = once(early, 'exit');
  await poster.close();
  await exited;
  expect(workerOf(poster)).toBeUndefined();
  poster.startEarly();
  expect(workerOf(poster)).toBeUndefined();
});
