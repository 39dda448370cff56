// The process of test/metrics-sdk.test.ts (run on the build: test/built-script.ts; the API's meter provider is
// global to a process): the CLI's `--metrics` set-up (`prometheusEndpoint`, then `startTelemetry` with its reader, the
// environment as given), a few turns of the embedded model with a clock that counts its reads (so every duration
// is the same in every run), then one JSON line: the scrape's text, the resource the reader collects with, the
// OpenTelemetry packages loaded (all CommonJS: require.cache), and the meter provider registered. Shut down last.
import { createRequire } from 'node:module';
import { metrics } from '@opentelemetry/api';
import { createResponsesService } from '../src/index.js';
import { prometheusEndpoint, startTelemetry } from '../src/node/index.js';

let reads = 0;
performance.now = () => ++reads;
const prometheus = await prometheusEndpoint();
const telemetry = await startTelemetry(process.env, { metricReaders: [prometheus.reader] });
const service = createResponsesService({});
for (const body of [
  { model: 'openresponses-deterministic', input: 'Hello! My name is Ada.' },
  { model: 'openresponses-deterministic', input: 'Tell me a story.', stream: true },
  { model: 'openresponses-deterministic', input: 'Hi', max_output_tokens: 'many' },
]) {
  const text = JSON.stringify(body);
  const answer = await service.handle({
    method: 'POST',
    path: '/v1/responses',
    header: (name) => (name === 'content-type' ? 'application/json' : null),
    text: async () => text,
  });
  // Read to its end (the streamed turn's metrics are recorded as it ends).
  if (answer.body && typeof answer.body === 'object') await answer.body.pipe(() => {});
}
const { resourceMetrics } = await (prometheus.reader as { collect(): Promise<{ resourceMetrics: never }> }).collect();
const { resource } = resourceMetrics as { resource: { waitForAsyncAttributes?(): Promise<void>; attributes: object } };
await resource.waitForAsyncAttributes?.();
const packages = new Set(
  Object.keys(createRequire(import.meta.url).cache).map(
    (file) => /node_modules\/(@opentelemetry\/[^/]+)/.exec(file)?.[1],
  ),
);
packages.delete(undefined);
console.log(
  JSON.stringify({
    text: await prometheus.scrape(),
    resource: resource.attributes,
    packages: [...packages].sort(),
    meterProvider: metrics.getMeterProvider().constructor.name,
  }),
);
await telemetry.shutdown();
