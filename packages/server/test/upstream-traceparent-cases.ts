// Run by test/upstream-traceparent.test.ts in a child process (Node's own loader: the test runner cannot load
// the SDK's builds): gateway JSON turns in process against the real replay upstream over HTTP through
// `nodeFetch`, under the CLI's own tracer, with the default W3C propagators, a provider header named
// traceparent, another propagator, the W3C one alone, and the W3C one under another class name; prints one JSON line per turn.
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import { ChatCompletionsProvider, createResponsesService } from '../src/index.js';
import { nodeFetch } from '../src/node/http-fetch.js';
import { OwnTracerProvider } from '../src/node/own-tracer.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import { w3cPropagation } from '../src/telemetry/traceparent.js';
import { startReplayUpstream } from '../src/testing/index.js';

const require = createRequire(import.meta.url);
const { propagation, SpanKind, trace } = require('@opentelemetry/api') as typeof Api;
const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
  require('@opentelemetry/core') as typeof Core;

const ended: EncodableSpan[] = [];
const upstream = await startReplayUpstream();
trace.setGlobalTracerProvider(
  new OwnTracerProvider(
    { onEnd: (span) => void ended.push(span), forceFlush: async () => {}, shutdown: async () => {} },
    { attributes: { 'service.name': 'traceparent-test' } },
    { shouldSample: () => ({ decision: 2 }) },
  ),
);

/** One gateway JSON turn: what the upstream received, and the turn's client span ids. */
async function turn(name: string, providerHeaders: Record<string, string> = {}) {
  const service = createResponsesService({
    providers: [new ChatCompletionsProvider({ baseUrl: upstream.baseUrl, fetch: nodeFetch, headers: providerHeaders })],
  });
  ended.length = 0;
  const body = JSON.stringify({ model: 'llama3.2', input: 'Hi' });
  const answer = await service.handle({
    method: 'POST',
    path: '/v1/responses',
    header: (header) => (header === 'content-type' ? 'application/json' : null),
    text: async () => body,
  });
  const clients = ended.filter((span) => span.kind === SpanKind.CLIENT).map((span) => span.spanContext());
  const headers = upstream.received.at(-1)!.headers;
  console.log(
    JSON.stringify({
      name,
      status: answer.status,
      w3c: w3cPropagation(),
      clients: clients.map(({ traceId, spanId }) => ({ traceId, spanId })),
      traceparent: headers.traceparent,
      tracestate: headers.tracestate,
    }),
  );
}

propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);
await turn('default');
await turn('default again');
await turn('provider traceparent', { traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` });
propagation.disable();
propagation.setGlobalPropagator({
  inject: (context, carrier, setter) => {
    const span = trace.getSpanContext(context)!;
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-03`);
  },
  extract: (context) => context,
  fields: () => ['traceparent'],
});
await turn('custom');
propagation.disable();
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
await turn('w3c alone');
// A bundler may rename the SDK's classes: the propagator is known by what it writes.
class RenamedByBundler extends W3CTraceContextPropagator {}
propagation.disable();
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new RenamedByBundler(), new W3CBaggagePropagator()] }),
);
await turn('w3c renamed');
await upstream.close();
process.exit(0);
