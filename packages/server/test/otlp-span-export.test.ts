// The CLI's own OTLP http/protobuf span export (node/otlp-span-export.ts) against real HTTP receivers on
// 127.0.0.1: spans arrive in batches; a receiver that is down, never answers, answers 500, answers with a
// body past the bound, or answers something that is not HTTP loses its batches (counted as failed), never
// throws into the caller, and later spans get through once it answers again; the queue stays within its
// bounds (the defaults, and small ones) while nothing is sent. Which environment takes this path, and which
// keeps the SDK's. The CLI with its collector gone still answers every turn.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { afterEach, describe, expect, test } from 'vitest';
import {
  MAX_QUEUE_BYTES,
  OtlpSpanExport,
  ownSpanExportSettings,
  type SpanExportSettings,
} from '../src/node/otlp-span-export.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import type { SpanBatch } from '../src/telemetry/span-batch.js';
import { startCli } from './cli-process.js';
import { startOtlpReceiver } from './otlp-receiver.js';

const resource = { attributes: { 'service.name': 'export-test' } };
const scope = { name: '@openresponses/server' };
let spanCount = 0;
/** An ended, sampled span as the SDK hands it to a processor (`sampled: false` for one it would not export). */
const endedSpan = (name = 'chat m', sampled = true, extra: Record<string, string> = {}): EncodableSpan => {
  const spanId = (++spanCount).toString(16).padStart(16, '0');
  return {
    name,
    kind: SpanKind.INTERNAL,
    spanContext: () => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId,
      traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    }),
    startTime: [1_764_374_400, 0],
    endTime: [1_764_374_400, 1000],
    status: { code: SpanStatusCode.UNSET },
    attributes: { 'gen_ai.request.model': 'm', ...extra },
    links: [],
    events: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    resource,
    instrumentationScope: scope,
  };
};

const settingsFor = (url: string, changes: Partial<SpanExportSettings> = {}): SpanExportSettings => ({
  ...ownSpanExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: url })!,
  ...changes,
});

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
/** An HTTP server on a free port answering every request with `answer`. */
async function receiverAnswering(answer: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(answer);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A TCP server on a free port handing each connection to `onSocket` (for answers that are not HTTP). */
async function tcpReceiver(onSocket: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    onSocket(socket);
  });
  servers.push(
    Object.assign(server, {
      closeAllConnections: () => {
        for (const socket of sockets) socket.destroy();
      },
    }) as never,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('export to a real receiver', () => {
  test('batches of maxBatchSpans and the rest on flush arrive whole, unsampled spans are left out', async () => {
    const receiver = await startOtlpReceiver();
    const problems: string[] = [];
    const exporter = new OtlpSpanExport(settingsFor(receiver.url, { maxBatchSpans: 4 }), (m) => problems.push(m));
    for (let i = 0; i < 10; i++) exporter.onEnd(endedSpan(`span ${i}`));
    exporter.onEnd(endedSpan('not sampled', false));
    await exporter.forceFlush();
    expect(receiver.requests.map((r) => [r.path, r.contentType])).toEqual(
      Array(3).fill(['/v1/traces', 'application/x-protobuf']),
    );
    const spans = receiver.spans();
    expect(spans.map((s) => s.name)).toEqual(Array.from({ length: 10 }, (_, i) => `span ${i}`));
    expect(spans[0]).toMatchObject({ serviceName: 'export-test', scope: '@openresponses/server', kind: 1 });
    expect(exporter.counted()).toEqual({ exported: 10, dropped: 0, failed: 0, queued: 0 });
    expect(problems).toEqual([]);
    await exporter.shutdown();
    exporter.onEnd(endedSpan('after shutdown'));
    expect(exporter.counted().queued).toBe(0);
    await receiver.close();
  });

  test("a sent batch's buffer is written again by a later batch (two alternate), and every batch arrives whole", async () => {
    const receiver = await startOtlpReceiver();
    const exporter = new OtlpSpanExport(settingsFor(receiver.url, { maxBatchSpans: 2 }));
    // The batch being written (a private field): which buffer its spans go into.
    const written = () => (exporter as unknown as { batch: SpanBatch }).batch.firstBuffer();
    const buffers: unknown[] = [];
    for (let round = 0; round < 4; round++) {
      exporter.onEnd(endedSpan(`span ${round}.0`, true, { round: `r${round}.0` }));
      buffers.push(written());
      exporter.onEnd(endedSpan(`span ${round}.1`, true, { round: `r${round}.1` }));
      await exporter.forceFlush();
    }
    expect(new Set(buffers).size).toBe(2);
    const spans = receiver.spans();
    expect(spans.map((s) => `${s.name} ${s.attributes.round}`)).toEqual(
      Array.from({ length: 8 }, (_, i) => `span ${i >> 1}.${i & 1} r${i >> 1}.${i & 1}`),
    );
    expect(exporter.counted()).toEqual({ exported: 8, dropped: 0, failed: 0, queued: 0 });
    await exporter.shutdown();
    await receiver.close();
  });

  test('a batch waits scheduleDelayMs for more spans, then goes alone', async () => {
    const receiver = await startOtlpReceiver();
    const exporter = new OtlpSpanExport(settingsFor(receiver.url, { scheduleDelayMs: 50 }));
    exporter.onEnd(endedSpan());
    expect(receiver.requests).toHaveLength(0);
    await expect.poll(() => exporter.counted().exported, { timeout: 5000 }).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    await exporter.shutdown();
    await receiver.close();
  });

  test('the headers of OTEL_EXPORTER_OTLP_HEADERS go with each export', async () => {
    const seen: Array<string | undefined> = [];
    const url = await receiverAnswering((req, res) => {
      seen.push(String(req.headers['x-collector-key']));
      req.resume().on('end', () => res.end());
    });
    const settings = ownSpanExportSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=a%20b,broken',
    })!;
    const exporter = new OtlpSpanExport(settings);
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(seen).toEqual(['a b']);
    await exporter.shutdown();
  });
});

describe('faults: nothing thrown, batches lost and counted, later spans get through', () => {
  const faults: Array<[string, () => Promise<string>, RegExp]> = [
    [
      'receiver down',
      async () => {
        const url = await receiverAnswering(() => {});
        await new Promise((resolve) => servers.pop()!.close(resolve));
        return url;
      },
      /ECONNREFUSED/,
    ],
    ['never answers', () => receiverAnswering(() => {}), /no answer within 300 ms/],
    [
      'answers 500',
      () => receiverAnswering((req, res) => req.resume().on('end', () => res.writeHead(500).end('no'))),
      /HTTP 500/,
    ],
    [
      'answers 200 with a body past the bound',
      () => receiverAnswering((req, res) => req.resume().on('end', () => res.end(Buffer.alloc(1 << 20, 7)))),
      /an answer over 65536 bytes/,
    ],
    [
      'answers something that is not HTTP',
      () => tcpReceiver((socket) => socket.end('garbage\r\n\r\n')),
      /Parse Error|HPE_/,
    ],
  ];
  test.each(faults)('%s', async (_name, start, reason) => {
    const problems: string[] = [];
    const url = await start();
    const exporter = new OtlpSpanExport(settingsFor(url, { timeoutMs: 300, maxBatchSpans: 5 }), (m) =>
      problems.push(m),
    );
    for (let i = 0; i < 12; i++) expect(() => exporter.onEnd(endedSpan())).not.toThrow();
    await exporter.forceFlush();
    expect(exporter.counted()).toEqual({ exported: 0, dropped: 0, failed: 12, queued: 0 });
    // One line for the streak (three failed exports), naming the receiver and the reason.
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`OTLP span export to ${url} failed (`);
    expect(problems[0]).toMatch(reason);
    await exporter.shutdown();
  });

  test('a keep-alive connection the collector closes as it is reused: the batch goes again on a new one', async () => {
    // Each connection answers its first request and closes on its second without a word.
    let connections = 0;
    const url = await tcpReceiver((socket) => {
      connections++;
      let requests = 0;
      socket.on('data', (chunk) => {
        if (!chunk.includes('POST')) return;
        if (++requests === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: keep-alive\r\n\r\n');
        else socket.destroy();
      });
    });
    const problems: string[] = [];
    const exporter = new OtlpSpanExport(settingsFor(url), (m) => problems.push(m));
    for (let i = 0; i < 2; i++) {
      exporter.onEnd(endedSpan());
      await exporter.forceFlush();
    }
    expect(exporter.counted()).toEqual({ exported: 2, dropped: 0, failed: 0, queued: 0 });
    expect(connections).toBe(2);
    expect(problems).toEqual([]);
    await exporter.shutdown();
  });

  test('after a failure, the next export to a receiver that answers again gets through', async () => {
    let fail = true;
    const url = await receiverAnswering((req, res) =>
      req.resume().on('end', () => res.writeHead(fail ? 500 : 200).end()),
    );
    const exporter = new OtlpSpanExport(settingsFor(url));
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    fail = false;
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(exporter.counted()).toEqual({ exported: 1, dropped: 0, failed: 1, queued: 0 });
    await exporter.shutdown();
  });
});

describe('retries, as the SDK exporter makes them: 429, 502, 503, 504 and network failures, within the timeout', () => {
  /** A receiver answering its requests in turn with `answers` (status and headers), then 200; what it was sent. */
  async function receiverAnsweringInTurn(answers: Array<[number, Record<string, string>?]>) {
    const bodies: Buffer[] = [];
    const times: number[] = [];
    const url = await receiverAnswering((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        times.push(performance.now());
        const [status, headers] = answers.shift() ?? [200];
        res.writeHead(status, headers).end();
      });
    });
    return { url, bodies, times };
  }

  test('503 then 200: the same batch is sent again after a pause of about a second, and counted once', async () => {
    const receiver = await receiverAnsweringInTurn([[503]]);
    const problems: string[] = [];
    const exporter = new OtlpSpanExport(settingsFor(receiver.url), (m) => problems.push(m));
    exporter.onEnd(endedSpan());
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(exporter.counted()).toEqual({ exported: 2, dropped: 0, failed: 0, queued: 0 });
    expect(receiver.bodies).toHaveLength(2);
    expect(receiver.bodies[1]).toEqual(receiver.bodies[0]);
    // The first pause: 1 s with ±20% jitter.
    expect(receiver.times[1]! - receiver.times[0]!).toBeGreaterThanOrEqual(790);
    expect(problems).toEqual([]);
    await exporter.shutdown();
  });

  test('429 with Retry-After: 0 goes again at once; 502 and 504 are retried too; 500 and 400 are not', async () => {
    const retried = await receiverAnsweringInTurn([
      [429, { 'retry-after': '0' }],
      [502, { 'retry-after': '0' }],
      [504, { 'retry-after': '0' }],
    ]);
    const exporter = new OtlpSpanExport(settingsFor(retried.url));
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(exporter.counted()).toMatchObject({ exported: 1, failed: 0 });
    expect(retried.bodies).toHaveLength(4);
    expect(retried.times[3]! - retried.times[0]!).toBeLessThan(750);
    await exporter.shutdown();
    for (const status of [500, 400]) {
      const refused = await receiverAnsweringInTurn([[status, { 'retry-after': '0' }]]);
      const once = new OtlpSpanExport(settingsFor(refused.url));
      once.onEnd(endedSpan());
      await once.forceFlush();
      expect(once.counted()).toMatchObject({ exported: 0, failed: 1 });
      expect(refused.bodies).toHaveLength(1);
      await once.shutdown();
    }
  });

  test('a Retry-After past the timeout, or retries that would end past it: the batch fails within the timeout', async () => {
    const later = await receiverAnsweringInTurn([[503, { 'retry-after': '60' }]]);
    const exporter = new OtlpSpanExport(settingsFor(later.url, { timeoutMs: 2000 }));
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(exporter.counted()).toMatchObject({ exported: 0, failed: 1 });
    expect(later.bodies).toHaveLength(1);
    await exporter.shutdown();
    // Always 503: tries at 0, ~1 s, ~2.5 s; a fourth (~4.75 s) would end past 3 s.
    const always = await receiverAnsweringInTurn(Array.from({ length: 10 }, () => [503] as [number]));
    const bounded = new OtlpSpanExport(settingsFor(always.url, { timeoutMs: 3000 }));
    const started = performance.now();
    bounded.onEnd(endedSpan());
    await bounded.forceFlush();
    expect(performance.now() - started).toBeLessThan(3000);
    expect(bounded.counted()).toMatchObject({ exported: 0, failed: 1 });
    expect(always.bodies.length).toBeGreaterThanOrEqual(2);
    expect(always.bodies.length).toBeLessThanOrEqual(3);
    await bounded.shutdown();
  });

  test('while a batch waits to be tried again, spans are taken at once up to the queue bound, the rest dropped and counted', async () => {
    const receiver = await receiverAnsweringInTurn([[503, { 'retry-after': '1' }]]);
    const exporter = new OtlpSpanExport(settingsFor(receiver.url, { maxBatchSpans: 2, maxQueueSpans: 4 }));
    exporter.onEnd(endedSpan());
    exporter.onEnd(endedSpan());
    await expect.poll(() => receiver.bodies.length).toBe(1);
    const started = performance.now();
    for (let i = 0; i < 5; i++) exporter.onEnd(endedSpan());
    expect(performance.now() - started).toBeLessThan(100);
    expect(exporter.counted()).toEqual({ exported: 0, dropped: 3, failed: 0, queued: 4 });
    await exporter.forceFlush();
    expect(exporter.counted()).toEqual({ exported: 4, dropped: 3, failed: 0, queued: 0 });
    await exporter.shutdown();
  });

  test('a connection reset before any answer is tried again on a new connection', async () => {
    let connections = 0;
    const url = await tcpReceiver((socket) => {
      const first = ++connections === 1;
      socket.on('data', (chunk) => {
        if (!chunk.includes('POST')) return;
        if (first) socket.resetAndDestroy();
        else socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      });
    });
    const exporter = new OtlpSpanExport(settingsFor(url));
    exporter.onEnd(endedSpan());
    await exporter.forceFlush();
    expect(exporter.counted()).toMatchObject({ exported: 1, failed: 0 });
    expect(connections).toBe(2);
    await exporter.shutdown();
  });
});

describe('bounds while nothing is sent', () => {
  test('the defaults: 2,048 spans wait at most, the rest are dropped and counted', async () => {
    const url = await receiverAnswering(() => {});
    const exporter = new OtlpSpanExport(settingsFor(url));
    expect(exporter.settings).toMatchObject({
      maxQueueSpans: 2048,
      maxBatchSpans: 512,
      maxQueueBytes: MAX_QUEUE_BYTES,
    });
    for (let i = 0; i < 10_000; i++) exporter.onEnd(endedSpan());
    expect(exporter.counted()).toMatchObject({ queued: 2048, dropped: 10_000 - 2048 });
    void exporter.shutdown();
  });

  test('small limits: the byte bound holds spans with large attributes', () => {
    const exporter = new OtlpSpanExport(
      settingsFor('http://127.0.0.1:9', { maxQueueBytes: 100_000, maxBatchSpans: 1000 }),
    );
    for (let i = 0; i < 100; i++) exporter.onEnd(endedSpan('big', true, { content: 'x'.repeat(10_000) }));
    // Each span is ~10 KB: the one that crosses 100,000 bytes is the last taken.
    expect(exporter.counted()).toMatchObject({ queued: 10, dropped: 90 });
    void exporter.shutdown();
  });
});

describe('which environment takes this path', () => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
  test('OTLP over http/protobuf, with the SDK variables and defaults', () => {
    expect(ownSpanExportSettings({})?.url.href).toBe('http://localhost:4318/v1/traces');
    expect(ownSpanExportSettings(endpoint)?.url.href).toBe('http://collector:4318/v1/traces');
    expect(ownSpanExportSettings({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/x' })?.url.href).toBe(
      'https://c/x',
    );
    expect(
      ownSpanExportSettings({
        ...endpoint,
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '512',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      }),
    ).toMatchObject({ timeoutMs: 2500, maxQueueSpans: 100, maxBatchSpans: 100, scheduleDelayMs: 200 });
  });
  test.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }],
    [{ OTEL_TRACES_EXPORTER: 'otlp,console' }],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }],
    [{ OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' }],
    [{ OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: '/etc/ca.pem' }],
    [{ OPENRESPONSES_OTEL_SPAN_EXPORT: 'sdk' }],
  ])('%o keeps the SDK exporter', (env) => {
    expect(ownSpanExportSettings({ ...endpoint, ...env })).toBeUndefined();
  });
});

test('the CLI with its collector gone: every turn answers, one line on stderr says spans are dropped', async () => {
  const dead = await receiverAnswering(() => {});
  await new Promise((resolve) => servers.pop()!.close(resolve));
  const cli = await startCli(['--port', '0', '--api-key', 'k'], {
    OTEL_EXPORTER_OTLP_ENDPOINT: dead,
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '3',
    // A refused connection is tried again while the export's timeout allows (twice in 2 s).
    OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
  });
  let stderr = '';
  cli.child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  for (let i = 0; i < 5; i++) {
    const answer = await fetch(`${cli.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'openresponses-deterministic', input: 'Hi' }),
    });
    expect(answer.status).toBe(200);
  }
  await expect.poll(() => stderr, { timeout: 10_000 }).toContain(`OTLP span export to ${dead} failed (`);
  expect(stderr.match(/OTLP span export/g)).toHaveLength(1);
  const exited = once(cli.child, 'exit');
  cli.child.kill('SIGTERM');
  expect((await exited)[0]).toBe(0);
});
