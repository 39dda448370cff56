// Issue 35's proof: the CLI with OpenTelemetry on (OTLP to test/otlp-receiver.ts) registers no context manager
// (no AsyncLocalStorage one taxing every promise: each span gets its parent explicitly), and still exports the
// span tree of a stored gateway turn under the caller's traceparent: request -> turn -> upstream call and store
// call. test/context-manager-probe.mjs, loaded into the CLI process, reports what the API's global holds.
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { startCli } from './cli-process.js';
import { type OtlpReceiver, SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

const KEY = 'sk-local-no-context-manager';
const CALLER_TRACE = '5bf92f3577b34da6a3ce929d0e0e4737';
const CALLER_SPAN = '10f067aa0ba902b8';
const probe = fileURLToPath(new URL('./context-manager-probe.mjs', import.meta.url));

let upstream: ReplayUpstream;
let receiver: OtlpReceiver;
beforeAll(async () => {
  upstream = await startReplayUpstream();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await upstream.close();
  await receiver.close();
});

test('the CLI traces a gateway turn with no context manager registered: request -> turn -> upstream call and store', async () => {
  const cli = await startCli(['--port', '0', '--api-key', KEY, '--chat-completions-url', upstream.baseUrl], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${probe}`,
  });
  let stdout = cli.output;
  cli.child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const answer = await fetch(`${cli.url}/v1/responses`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${KEY}`,
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    },
    body: JSON.stringify({ model: 'llama3.2', input: 'Hello upstream' }),
  });
  expect(answer.status).toBe(200);
  const exited = once(cli.child, 'exit');
  cli.child.kill('SIGTERM');
  expect((await exited)[0]).toBe(0);

  // No context manager in the API's global; the SDK's tracer provider behind its proxy.
  const reported = /context-manager-probe (.+)/.exec(stdout)?.[1];
  // (With the SDK's default, it would name AsyncLocalStorageContextManager.)
  const registered = JSON.parse(reported!) as { contextManager: string | null; tracerProvider: string | null };
  expect(registered.contextManager).toBeNull();
  expect(registered.tracerProvider).toMatch(/TracerProvider$/);
  expect(registered.tracerProvider).not.toMatch(/Noop/);

  const spans = receiver.spans().filter((span) => span.traceId === CALLER_TRACE);
  const childrenOf = (parent: { spanId: string }) =>
    spans.filter((span) => span.parentSpanId === parent.spanId).map((span) => span.name);
  const server = spans.find((span) => span.kind === SPAN_KIND.server)!;
  expect(server).toMatchObject({ name: 'POST /v1/responses', parentSpanId: CALLER_SPAN });
  expect(childrenOf(server)).toEqual(['chat llama3.2']);
  const turn = spans.find((span) => span.name === 'chat llama3.2')!;
  expect(childrenOf(turn).sort()).toEqual(['POST', 'store put']);
  const client = spans.find((span) => span.kind === SPAN_KIND.client)!;
  expect(client.parentSpanId).toBe(turn.spanId);
  // The upstream got the client span's context: the caller's trace, carried on.
  const call = upstream.received.find((request) => request.path === '/v1/chat/completions')!;
  expect(call.headers.traceparent).toBe(`00-${CALLER_TRACE}-${client.spanId}-01`);
  expect(spans).toHaveLength(4);
});
