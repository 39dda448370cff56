// The process of test/head-sampling.test.ts (run on the build: test/built-script.ts): for each scenario of
// argv[4] (JSON: `{ sampler, ratio?, turns: [{ model, traceparent? }] }[]`), registers the OpenTelemetry SDK with
// `startTelemetry` as the CLI does (OTLP http/json to argv[2], OTEL_TRACES_SAMPLER and its argument), counts
// every span its tracer is asked to start, runs the turns through a gateway service in front of argv[3] (a
// Chat Completions API root), shuts the SDK down (exporting what it holds) and prints one JSON line: the
// names of the SDK spans each turn started.
import { metrics, type ProxyTracerProvider, propagation, type Tracer, trace } from '@opentelemetry/api';
import { ChatCompletionsProvider, createResponsesService } from '../src/index.js';
import { nodeFetch, startTelemetry } from '../src/node/index.js';

interface Scenario {
  sampler: string;
  ratio?: string;
  turns: Array<{ model: string; traceparent?: string }>;
}

const [receiver, upstream, scenarios] = process.argv.slice(2) as [string, string, string];
for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
const service = createResponsesService({
  providers: [new ChatCompletionsProvider({ baseUrl: upstream, fetch: nodeFetch })],
});

for (const scenario of JSON.parse(scenarios) as Scenario[]) {
  // The SDK reads its exporters' settings from process.env itself.
  Object.assign(process.env, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRICS_EXPORTER: 'none',
    OTEL_TRACES_SAMPLER: scenario.sampler,
    OTEL_TRACES_SAMPLER_ARG: scenario.ratio ?? '',
  });
  const telemetry = await startTelemetry(process.env);
  if (!telemetry.plan.traces) throw new Error('no traces planned');
  let started: string[] = [];
  const provider = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
  const getTracer = provider.getTracer.bind(provider);
  provider.getTracer = (...args: Parameters<typeof getTracer>): Tracer => {
    const tracer = getTracer(...args);
    const startSpan = tracer.startSpan.bind(tracer);
    tracer.startSpan = (name, ...rest) => {
      started.push(name);
      return startSpan(name, ...rest);
    };
    return tracer;
  };
  const perTurn: string[][] = [];
  for (const { model, traceparent } of scenario.turns) {
    const body = JSON.stringify({ model, input: 'Hello' });
    const answer = await service.handle({
      method: 'POST',
      path: '/v1/responses',
      header: (name) =>
        name === 'content-type' ? 'application/json' : name === 'traceparent' ? (traceparent ?? null) : null,
      text: async () => body,
    });
    if (answer.status !== 200) throw new Error(`status ${answer.status}`);
    perTurn.push(started);
    started = [];
  }
  await telemetry.shutdown();
  trace.disable();
  propagation.disable();
  metrics.disable();
  console.log(JSON.stringify(perTurn));
}
