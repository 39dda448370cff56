// What @opentelemetry/exporter-prometheus's serializer writes, for test/prometheus-text.test.ts: the collections
// on stdin (v8-serialised), then a collection of the SDK's own instruments, made here. A process of its own
// because the test workers run Node with the `module` condition, under which this CommonJS package loads
// @opentelemetry/api's module build, whose extensionless imports Node cannot load.
const v8 = require('node:v8');
const { PrometheusSerializer } = require('@opentelemetry/exporter-prometheus');
const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics');

class CollectingReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}

/** Many series of every instrument kind, with label values to escape. */
async function sdkCollection(labelValues) {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  const meter = provider.getMeter('openresponses-server', '0.0.1');
  const histogram = meter.createHistogram('gen_ai.server.request.duration', { unit: 's', description: 'Duration.' });
  const counter = meter.createCounter('openresponses.rate_limited', { description: 'Rejected "429" requests.' });
  const upDown = meter.createUpDownCounter('openresponses.responses.running');
  const gauge = meter.createGauge('openresponses.store.size', { unit: 'By' });
  meter
    .createObservableGauge('openresponses.websocket.open')
    .addCallback((result) => result.observe(3, { transport: 'ws\n"x"' }));
  for (let i = 0; i < 500; i++) {
    const attributes = { 'gen_ai.request.model': labelValues[i % labelValues.length] + i, 'http.status': 200 };
    histogram.record(i / 100, attributes);
    counter.add(i % 3, attributes);
    upDown.add(i % 2 ? 1 : -1, { tenant: `t${i % 7}` });
    gauge.record(i * 1.5, { store: i % 2 ? 'memory' : 'redis' });
  }
  const { resourceMetrics } = await reader.collect();
  await provider.shutdown();
  // Data only (the resource is not served: no target_info).
  return { resource: { attributes: {} }, scopeMetrics: resourceMetrics.scopeMetrics };
}

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', async () => {
  const { collections, labelValues } = v8.deserialize(Buffer.concat(chunks));
  const sdk = await sdkCollection(labelValues);
  const serializer = new PrometheusSerializer(undefined, undefined, undefined, true);
  const texts = [...collections, sdk].map((metrics) => serializer.serialize(metrics));
  process.stdout.write(v8.serialize({ sdk, texts }));
});
