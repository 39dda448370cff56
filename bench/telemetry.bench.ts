// What OpenTelemetry costs the server, side by side in one run: off, metrics only, and spans and metrics on,
// for the embedded model and for the gateway in front of the Chat Completions stub; over HTTP (the CLI three
// times) and without HTTP (three processes running `service.handle` turns). See fixtures/telemetry-overhead.ts;
// first the SDK's own span path per span against the API's no-op spans (fixtures/span-floor.ts).
import { startStub } from './fixtures/upstream-process.js';
import { compareSpanPaths } from './fixtures/span-floor.js';
import { compareTelemetry, compareTurns, startOtlpSink } from './fixtures/telemetry-overhead.js';

const embeddedJson = JSON.stringify({
  model: 'openresponses-deterministic',
  input: 'Hello! My name is Ada. What can you do?',
});
const embeddedSse = JSON.stringify({
  model: 'openresponses-deterministic',
  input: 'Tell me a long story [long]',
  stream: true,
  store: false,
});
const gatewayBody = (stream: boolean) =>
  JSON.stringify({ model: 'stub-model', input: 'Hello! What can you do?', ...(stream ? { stream: true } : {}) });

export async function run(): Promise<void> {
  const embedded = [
    { title: 'JSON, embedded model', body: embeddedJson },
    { title: 'SSE, embedded model', body: embeddedSse },
  ];
  const gateway = [
    { title: 'gateway JSON', body: gatewayBody(false) },
    { title: 'gateway SSE', body: gatewayBody(true) },
  ];
  // What the SDK's span path costs by itself, against the API's no-op spans: the floor under "both on".
  const sink = await startOtlpSink();
  try {
    await compareSpanPaths(sink.url);
  } finally {
    await sink.close();
  }
  // The SDK is global to a process: each setting runs in its own.
  await compareTurns(embedded);
  await compareTelemetry(embedded);
  const stub = await startStub();
  try {
    await compareTurns(gateway, stub.url);
    await compareTelemetry(gateway, ['--chat-completions-url', stub.url]);
  } finally {
    stub.stop();
  }
}
