// Run by test/otlp-metric-export.test.ts in a child process (Node's own loader: the test runner cannot load the
// SDK's ESM builds): the own OTLP metric exporter (src/node/otlp-metric-export.ts) and the SDK's against a
// collector on 127.0.0.1, each case's findings printed as one JSON line `{ "case": …, … }`.
import type * as Api from '@opentelemetry/api';
import type * as Proto from '@opentelemetry/exporter-metrics-otlp-proto';
import type * as Resources from '@opentelemetry/resources';
import type * as Metrics from '@opentelemetry/sdk-metrics';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { subscribe } from 'node:diagnostics_channel';
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { ownMetricExporter } from '../src/node/otlp-metric-export.js';
import { startTelemetry } from '../src/node/telemetry-sdk.js';

const require = createRequire(import.meta.url);
const { metrics } = require('@opentelemetry/api') as typeof Api;
const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-proto') as typeof Proto;
const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof Resources;
const { AggregationTemporality, DataPointType, InstrumentType } =
  require('@opentelemetry/sdk-metrics') as typeof Metrics;

/** Paths of the HTTP requests this isolate starts (a worker thread's are not published here). */
const started: string[] = [];
subscribe('http.client.request.start', (message) =>
  started.push((message as { request: { path: string } }).request.path),
);

interface Received {
  path: string;
  contentType: string | undefined;
  tenant: string | undefined;
  authorization: string | undefined;
  hex: string;
}

/** A collector on a free port: keeps each request and answers it with `answer` (200 by default). */
async function startCollector(answer?: RequestListener) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { 'content-type': contentType, 'x-tenant': tenant, authorization } = req.headers;
      received.push({
        path: req.url ?? '',
        contentType,
        tenant: tenant as string | undefined,
        authorization,
        hex: Buffer.concat(chunks).toString('hex'),
      });
      if (answer) answer(req, res);
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A counter and a histogram, as a reader hands them to its exporter. */
const METRICS: ResourceMetrics = {
  resource: resourceFromAttributes({ 'service.name': 'metric-export-test', 'host.name': 'h' }),
  scopeMetrics: [
    {
      scope: { name: 'openresponses-server' },
      metrics: [
        {
          descriptor: { name: 'openresponses.tenant.turns', description: 'Turns', unit: '{turn}', valueType: 1 },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.SUM,
          isMonotonic: true,
          dataPoints: [
            {
              attributes: { 'openresponses.tenant': 'a' },
              startTime: [1700000000, 5],
              endTime: [1700000060, 7],
              value: 12,
            },
          ],
        },
        {
          descriptor: { name: 'gen_ai.server.request.duration', description: 'Duration', unit: 's', valueType: 1 },
          aggregationTemporality: AggregationTemporality.CUMULATIVE,
          dataPointType: DataPointType.HISTOGRAM,
          dataPoints: [
            {
              attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' },
              startTime: [1700000000, 5],
              endTime: [1700000060, 7],
              value: {
                buckets: { boundaries: [0.01, 0.1, 1], counts: [1, 2, 0, 1] },
                sum: 2.5,
                count: 4,
                min: 0.005,
                max: 2.2,
              },
            },
          ],
        },
      ],
    },
  ],
};

/** The export's result: its code (0 success, 1 failed) and error message. */
const exportWith = (exporter: PushMetricExporter) =>
  new Promise<{ code: number; error?: string }>((resolve) =>
    exporter.export(METRICS, ({ code, error }) => resolve(error ? { code, error: error.message } : { code })),
  );

/** Sets the variables the SDK's exporters read (process.env) for `run`, then removes them. */
async function withEnv<T>(values: Record<string, string>, run: () => Promise<T>): Promise<T> {
  Object.assign(process.env, values);
  try {
    return await run();
  } finally {
    for (const name of Object.keys(values)) delete process.env[name];
  }
}

/** The thread id of a worker started now (and ended at once). */
function probeThreadId(): number {
  const probe = new Worker('', { eval: true });
  void probe.terminate();
  return probe.threadId;
}

const print = (findings: Record<string, unknown>) => console.log(JSON.stringify(findings));

{
  const collector = await startCollector();
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/base`,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=one,authorization=Bearer%20k',
    OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-tenant=two',
    OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
  };
  await withEnv(env, async () => {
    const sdk = new OTLPMetricExporter();
    const own = ownMetricExporter();
    const results = [await exportWith(sdk)];
    const startedBySdk = started.splice(0);
    results.push(await exportWith(own));
    const temporality = [InstrumentType.COUNTER, InstrumentType.UP_DOWN_COUNTER, InstrumentType.HISTOGRAM];
    print({
      case: 'same request',
      results,
      startedBySdk,
      startedByOwn: started.splice(0),
      received: collector.received,
      temporality: temporality.map((type) => [
        sdk.selectAggregationTemporality!(type),
        own.selectAggregationTemporality!(type),
      ]),
    });
    await Promise.all([sdk.shutdown(), own.shutdown()]);
  });
  await collector.close();
}

{
  let status = 400;
  const collector = await startCollector((_req, res) => res.writeHead(status).end());
  await withEnv({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${collector.url}/v1/metrics` }, async () => {
    const own = ownMetricExporter();
    const failed = await exportWith(own);
    const requests = collector.received.length;
    status = 200;
    print({ case: 'failing collector', failed, requests, next: await exportWith(own) });
    await own.shutdown();
  });
  await collector.close();
}

{
  const collector = await startCollector(() => {});
  const env = {
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${collector.url}/v1/metrics`,
    OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: '300',
  };
  await withEnv(env, async () => {
    const own = ownMetricExporter();
    const result = exportWith(own);
    const begun = performance.now();
    await own.shutdown();
    const shutdownMs = performance.now() - begun;
    print({ case: 'hung collector', shutdownMs, result: await result, afterShutdown: await exportWith(own) });
  });
  await collector.close();
}

{
  // What the CLI registers: startTelemetry with OTLP http/protobuf metrics, flushed.
  const collector = await startCollector();
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRIC_EXPORT_INTERVAL: '1000000',
  };
  await withEnv(env, async () => {
    const before = probeThreadId();
    const telemetry = await startTelemetry(process.env);
    // Worker thread ids count up: one between the probes is the export's, started with telemetry (not at the export).
    const workersStarted = probeThreadId() - before - 1;
    metrics.getMeter('cases').createCounter('cases.counted').add(3);
    await (metrics.getMeterProvider() as unknown as { forceFlush(): Promise<void> }).forceFlush();
    const paths = collector.received.map((request) => request.path);
    const received = collector.received.at(-1)?.hex ?? '';
    await telemetry.shutdown();
    print({
      case: 'startTelemetry',
      paths: [...new Set(paths)],
      counted: received.includes(Buffer.from('cases.counted').toString('hex')),
      startedHere: started.splice(0),
      workersStarted,
    });
  });
  await collector.close();
}
