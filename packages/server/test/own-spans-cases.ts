// Run by test/own-spans.test.ts in a child process (Node's own loader: the test runner cannot load the SDK's
// builds): the same turns through the service, in process, under the CLI's own tracer with the head sampler (as
// the CLI registers them), once with the server's own spans in their fixed shape (telemetry/own-spans.ts) and once
// through the API path only. Prints, per path, each batch's bytes from our encoder and from the SDK's
// serializer, and which spans took the fixed shape.
import { createRequire } from 'node:module';
import type * as Api from '@opentelemetry/api';
import type * as Core from '@opentelemetry/core';
import type * as Transformer from '@opentelemetry/otlp-transformer';
import { ChatCompletionsProvider, createResponsesService } from '../src/index.js';
import { nodeFetch } from '../src/node/http-fetch.js';
import { OwnTracerProvider } from '../src/node/own-tracer.js';
import { OwnFixedSpan } from '../src/node/own-fixed-span.js';
import type { EncodableSpan } from '../src/telemetry/encodable-span.js';
import { sampleAtHead } from '../src/telemetry/head-sampling.js';
import { SpanBatch } from '../src/telemetry/span-batch.js';
import { startReplayUpstream } from '../src/testing/index.js';

const require = createRequire(import.meta.url);
const { propagation, trace } = require('@opentelemetry/api') as typeof Api;
const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof Core;
const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer') as typeof Transformer;

propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const upstream = await startReplayUpstream();
const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

type Answer = Awaited<ReturnType<ReturnType<typeof createResponsesService>['handle']>>;
/** The answer's body read whole (a JSON body, or a stream written out). */
async function bodyOf(answer: Answer): Promise<string> {
  const body = answer.body as unknown;
  if (body === null || typeof body === 'string') return body ?? '';
  let text = '';
  const decoder = new TextDecoder();
  await (body as { pipe(write: (chunk: string | Uint8Array) => void): Promise<void> }).pipe((chunk) => {
    text += typeof chunk === 'string' ? chunk : decoder.decode(chunk);
  });
  return text;
}

/** The turns, the same on both paths. */
async function turns(fixedShapes: boolean) {
  const ended: EncodableSpan[] = [];
  const provider = new OwnTracerProvider(
    { onEnd: (span) => void ended.push(span), forceFlush: async () => {}, shutdown: async () => {} },
    { attributes: { 'service.name': 'own-spans-test' } },
    // The environment's sampler is never asked where the head decided.
    { shouldSample: () => ({ decision: 0 }) },
    { fixedShapes },
  );
  trace.disable();
  trace.setGlobalTracerProvider(provider);
  sampleAtHead(provider, { parentBased: true, sampled: () => true });
  const gateway = () => new ChatCompletionsProvider({ baseUrl: upstream.baseUrl, fetch: nodeFetch });
  const service = createResponsesService({ providers: [gateway()] });
  const capturing = createResponsesService({ providers: [gateway()], telemetry: { captureMessageContent: true } });
  const post = async (body: unknown, traceparent?: string, on = service) =>
    bodyOf(
      await on.handle({
        method: 'POST',
        path: '/v1/responses',
        header: (name) =>
          name === 'content-type' ? 'application/json' : name === 'traceparent' ? (traceparent ?? null) : null,
        text: async () => JSON.stringify(body),
      }),
    );
  const model = 'openresponses-deterministic';
  const first = JSON.parse(await post({ model, input: 'Hi' })) as { id: string };
  await post({ model, input: 'Hi again', stream: true }, CALLER);
  await post({ model, input: 'And then?', previous_response_id: first.id });
  await post({ model, input: 'Now [fail]' });
  await post({ model, input: 'Now [fail]', stream: true });
  await post({ model: 'llama3.2', input: 'Through the gateway' });
  await post({ model: 'status-429', input: 'Refused' });
  await post({ model: 'llama3.2', input: 'Cut [fail]', stream: true });
  // A continuation the store does not hold (another service's response): a failed turn.
  await post({ model, input: 'Elsewhere', previous_response_id: first.id }, undefined, capturing);
  // Content capture: keys the fixed shape has no field for (the general span takes over).
  const captured = JSON.parse(
    await post({ model, instructions: 'Be brief.', input: 'Captured' }, undefined, capturing),
  );
  await post(
    { model, input: [{ role: 'user', content: 'More' }], previous_response_id: captured.id },
    undefined,
    capturing,
  );
  const batch = new SpanBatch();
  for (const span of ended) batch.add(span);
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  return {
    fixedShapes,
    ours: hex(batch.request()),
    theirs: hex(ProtobufTraceSerializer.serializeRequest(ended as never)!),
    // Which spans took the fixed shape, and which of those kept it to their end.
    fixed: ended.map((span) => (span instanceof OwnFixedSpan ? (span.generalized ? 'general' : 'fixed') : '')),
  };
}

console.log(JSON.stringify(await turns(true)));
console.log(JSON.stringify(await turns(false)));
await upstream.close();
