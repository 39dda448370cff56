// The server's own time per turn, as users see it: the `openresponses-overhead-duration-ms` header and the
// `openresponses.server.overhead.duration` histogram, on the real CLI in front of an upstream that takes
// UPSTREAM_WAIT_MS to answer. The upstream's wait must not count: the figure stays well under it.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, expect, test } from 'vitest';
import { OVERHEAD_HEADER } from '../src/handler/middleware.js';
import { BUCKETS } from '../src/telemetry/metrics.js';
import { startCli } from './cli-process.js';

const KEY = 'k-api';
const METRICS_KEY = 'k-metrics';
const UPSTREAM_WAIT_MS = 250;
const recording = (name: string) => readFileSync(new URL(`../src/testing/recordings/${name}`, import.meta.url), 'utf8');

let upstream: Server | undefined;
afterEach(async () => {
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve) ?? resolve(undefined));
  upstream = undefined;
});

/** A Chat Completions upstream that waits UPSTREAM_WAIT_MS before it answers (the whole body, or the stream's head). */
async function slowUpstream(): Promise<string> {
  upstream = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[]}');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, UPSTREAM_WAIT_MS));
    const streamed = (JSON.parse(body) as { stream?: boolean }).stream === true;
    res
      .writeHead(200, { 'content-type': streamed ? 'text/event-stream' : 'application/json' })
      .end(recording(streamed ? 'openai-text.sse' : 'openai-text.json'));
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(upstream!.address() as AddressInfo).port}/v1`;
}

const overheadOf = (headers: Headers): number => {
  const value = headers.get(OVERHEAD_HEADER);
  expect(value).toMatch(/^\d+\.\d{3}$/);
  return Number(value);
};

test('a gateway turn answers its own time (without the upstream wait) in a header and in /metrics', async () => {
  const upstreamUrl = await slowUpstream();
  const { url } = await startCli([
    ...['--port', '0', '--api-key', KEY, '--metrics', '--metrics-key', METRICS_KEY],
    ...['--chat-completions-url', upstreamUrl],
  ]);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY, maxRetries: 0 });

  // The process's first turns load and compile the gateway's modules (~100 ms under tsx): real, but not the figure here.
  const warmJson = await client.responses.create({ model: 'llama3.2', input: 'Warm up' }).withResponse();
  const warmSse = await client.responses.create({ model: 'llama3.2', input: 'Warm up', stream: true }).withResponse();
  for await (const _ of warmSse.data);
  const warmUp = overheadOf(warmJson.response.headers) + overheadOf(warmSse.response.headers);

  // JSON: the header covers the whole answer.
  let started = performance.now();
  const json = await client.responses.create({ model: 'llama3.2', input: 'Hello upstream' }).withResponse();
  const jsonTotal = performance.now() - started;
  expect(json.data.output_text).toBe('Hello from the upstream.');
  expect(jsonTotal).toBeGreaterThanOrEqual(UPSTREAM_WAIT_MS);
  const jsonOverhead = overheadOf(json.response.headers);
  expect(jsonOverhead).toBeGreaterThanOrEqual(0);
  expect(jsonOverhead).toBeLessThan(UPSTREAM_WAIT_MS / 2);

  // SSE: the header covers the time to the answer's headers, which come after the upstream's first events.
  started = performance.now();
  const sse = await client.responses
    .create({ model: 'llama3.2', input: 'Hello upstream', stream: true })
    .withResponse();
  const headersAfter = performance.now() - started;
  const types: string[] = [];
  for await (const event of sse.data) types.push(event.type);
  expect(types.at(-1)).toBe('response.completed');
  expect(headersAfter).toBeGreaterThanOrEqual(UPSTREAM_WAIT_MS);
  const sseOverhead = overheadOf(sse.response.headers);
  expect(sseOverhead).toBeGreaterThanOrEqual(0);
  expect(sseOverhead).toBeLessThan(UPSTREAM_WAIT_MS / 2);

  // The embedded model waits on nobody: its whole time is the server's own (so the header is not a constant).
  const own = await fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: 'openresponses-deterministic', input: 'Hello!' }),
  });
  expect(own.status).toBe(200);
  expect(overheadOf(own.headers)).toBeGreaterThan(0);
  // Not a turn: no header.
  expect((await fetch(`${url}/healthz`)).headers.get(OVERHEAD_HEADER)).toBeNull();

  // The same figures as a histogram in seconds, labelled like http.server.request.duration.
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } })).text();
  const family = parsePrometheusTextFormat(text).find(
    (f) => f.name === 'openresponses_server_overhead_duration_seconds',
  );
  expect(family?.type).toBe('HISTOGRAM');
  const line = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) && l.includes('http_route="/v1/responses"'))
      .map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
  // The two warm-up turns and the three above, each recorded as its header said (rounded to µs).
  expect(line('openresponses_server_overhead_duration_seconds_count')).toEqual([5]);
  const [sum] = line('openresponses_server_overhead_duration_seconds_sum');
  expect(sum! * 1000).toBeCloseTo(warmUp + jsonOverhead + sseOverhead + overheadOf(own.headers), 1);
  const bounds = text
    .split('\n')
    .filter((l) => l.startsWith('openresponses_server_overhead_duration_seconds_bucket{'))
    .map((l) => /le="([^"]+)"/.exec(l)![1]!);
  expect([...new Set(bounds)]).toEqual([...BUCKETS.overhead.map(String), '+Inf']);
});
