// OpenTelemetry end to end: the real CLI process, configured by the standard OTEL_* environment, exports
// its spans with the real SDK to an in-process OTLP/HTTP receiver. A streamed turn, a tool round trip, a
// gateway turn (the CLI in front of the replay upstream) and a WebSocket turn give the expected spans,
// links and attributes, and the upstream receives the trace's traceparent; content is recorded only when
// opted in; nothing is exported with OTEL_SDK_DISABLED=true; the JSON request log names the trace.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { startCli } from './cli-process.js';
import { type OtlpReceiver, type ReceivedSpan, SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

const KEY = 'sk-local-tracing-7c1d9e';
const UPSTREAM_KEY = 'sk-upstream-tracing-52ab0f';
/** A prompt word that must never leave the process unless content capture is on. */
const SECRET_WORD = 'zanzibar-quokka-31';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
/** A caller trace that is not sampled (flags 00): nothing of it is recorded, but it reaches the upstream. */
const UNSAMPLED_TRACE = '0af7651916cd43dd8448eb211c80319c';

let upstream: ReplayUpstream;
beforeAll(async () => {
  upstream = await startReplayUpstream();
});
afterAll(() => upstream.close());

/** The CLI with an OTLP endpoint at `receiver`, its stdout collected from the start. */
async function startTracedCli(receiver: OtlpReceiver, env: Record<string, string> = {}, args: string[] = []) {
  const cli = await startCli(['--port', '0', '--api-key', KEY, '--chat-completions-url', upstream.baseUrl, ...args], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // Spans in the default protocol, through the CLI's own exporter (node/otlp-span-export.ts); metrics in JSON.
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    OTEL_SERVICE_NAME: 'tracing-test',
    OPENRESPONSES_CHAT_COMPLETIONS_API_KEY: UPSTREAM_KEY,
    ...env,
  });
  let stdout = cli.output;
  cli.child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return { ...cli, stdout: () => stdout };
}

/** SIGTERM, and wait for the exit: the SDK flushes what it holds on the way out. */
async function stop(child: ChildProcess) {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code).toBe(0);
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers },
    body: JSON.stringify(body),
  });

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);
const only = (spans: ReceivedSpan[], predicate: (span: ReceivedSpan) => boolean) => {
  const found = spans.filter(predicate);
  expect(found.map((span) => span.name)).toHaveLength(1);
  return found[0]!;
};

describe("traces from the CLI over OTLP/HTTP (http/protobuf, the CLI's own exporter)", () => {
  let receiver: OtlpReceiver;
  let spans: ReceivedSpan[];
  let stdout: string;
  let toolCallId: string;
  let firstId: string;
  const socketTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const cli = await startTracedCli(receiver, {}, ['--log-format', 'json']);
    // 1. A streamed turn on the embedded model, under the caller's trace.
    const streamed = await post(
      cli.url,
      { model: 'openresponses-deterministic', input: `Hello, the word is ${SECRET_WORD}.`, stream: true },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('response.completed');
    // 2. A tool round trip: a function call, then its output continued with previous_response_id.
    const first = (await (
      await post(cli.url, {
        model: 'openresponses-deterministic',
        input: 'Weather?',
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
      })
    ).json()) as { id: string; output: Array<{ type: string; call_id: string }> };
    firstId = first.id;
    toolCallId = first.output.find((item) => item.type === 'function_call')!.call_id;
    const second = await post(cli.url, {
      model: 'openresponses-deterministic',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: toolCallId, output: '{"temperature":21}' }],
      tools: [WEATHER_TOOL],
    });
    expect(second.status).toBe(200);
    // 3. A gateway turn: the catch-all Chat Completions upstream, streamed.
    // The client's baggage and tracestate stay here: only traceparent goes upstream.
    const gateway = await post(
      cli.url,
      { model: 'llama3.2', input: `Gateway ${SECRET_WORD}`, stream: true },
      { baggage: 'user.id=client-baggage-secret', tracestate: 'vendor=client-tracestate-secret' },
    );
    expect(await gateway.text()).toContain('response.completed');
    // 5. Failures: the upstream answers 429; a stream is cut.
    expect((await post(cli.url, { model: 'status-429', input: 'x' })).status).toBe(429);
    // An upstream 400 whose message quotes the request ('temperature'): the exception event keeps its words out.
    expect((await post(cli.url, { model: 'status-400', input: 'x' })).status).toBe(400);
    expect(await (await post(cli.url, { model: 'cut', input: 'x', stream: true })).text()).toContain('response.failed');
    // 6. A stored response read back, and a method the HTTP conventions do not name (node:http takes WebDAV's).
    const auth = { authorization: `Bearer ${KEY}` };
    expect((await fetch(`${cli.url}/v1/responses/${first.id}`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${cli.url}/v1/responses`, { method: 'PROPFIND', headers: auth })).status).toBeGreaterThan(399);
    // 7. A gateway turn under a caller trace that is not sampled.
    const unsampled = await post(
      cli.url,
      { model: 'unsampled-model', input: 'Hi' },
      { traceparent: `00-${UNSAMPLED_TRACE}-${CALLER_SPAN}-00` },
    );
    expect(unsampled.status).toBe(200);
    // 4. A WebSocket turn, its upgrade under another caller trace.
    const socket = new WebSocket(`${cli.url.replace('http', 'ws')}/v1/responses`, {
      headers: { authorization: `Bearer ${KEY}`, traceparent: `00-${socketTrace}-${CALLER_SPAN}-01` },
    });
    const completed = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type === 'response.completed') resolve();
      }),
    );
    await once(socket, 'open');
    socket.send(JSON.stringify({ type: 'response.create', model: 'openresponses-deterministic', input: 'Hi there' }));
    await completed;
    socket.close();
    await stop(cli.child);
    spans = receiver.spans();
    expect(new Set(receiver.requests.filter((r) => r.path === '/v1/traces').map((r) => r.contentType))).toEqual(
      new Set(['application/x-protobuf']),
    );
    stdout = cli.stdout();
    // Spans over the traces' own protocol, metrics over the general one.
    expect(stdout).toContain(
      `OpenTelemetry: spans over OTLP http/protobuf and metrics over OTLP http/json to ${receiver.url}`,
    );
  });
  afterAll(() => receiver.close());

  test('a streamed turn: the server span continues the caller trace, the GenAI span and the store call are its children', () => {
    const server = only(spans, (s) => s.traceId === CALLER_TRACE && s.kind === SPAN_KIND.server);
    expect(server).toMatchObject({
      name: 'POST /v1/responses',
      parentSpanId: CALLER_SPAN,
      serviceName: 'tracing-test',
      scope: '@openresponses/server',
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/v1/responses',
        'url.path': '/v1/responses',
        'http.response.status_code': 200,
      },
    });
    const [turn, ...others] = childrenOf(spans, server);
    expect(others).toEqual([]);
    expect(turn).toMatchObject({
      name: 'chat openresponses-deterministic',
      kind: SPAN_KIND.internal,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openresponses',
        'gen_ai.request.model': 'openresponses-deterministic',
        'gen_ai.response.model': 'openresponses-deterministic',
        'gen_ai.request.stream': true,
        'gen_ai.response.finish_reasons': ['stop'],
      },
    });
    expect(turn!.attributes['gen_ai.response.id']).toMatch(/^resp_/);
    expect(turn!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(turn!.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(childrenOf(spans, turn!).map((s) => s.name)).toEqual(['store put']);
  });

  test('a GET of a stored response: its store call is a child of the server span; an unnamed method is _OTHER', () => {
    const read = only(spans, (s) => s.kind === SPAN_KIND.server && s.name === 'GET /v1/responses/:id');
    expect(read.attributes['url.path']).toBe(`/v1/responses/${firstId}`);
    expect(childrenOf(spans, read)).toMatchObject([
      { name: 'store get', attributes: { 'db.operation.name': 'get', 'openresponses.store': 'InMemoryResponseStore' } },
    ]);
    const webdav = only(spans, (s) => s.kind === SPAN_KIND.server && s.attributes['http.request.method'] === '_OTHER');
    expect(webdav.name).toBe('HTTP');
    expect(webdav.attributes['http.request.method_original']).toBe('PROPFIND');
  });

  test('a tool round trip: tool_calls then stop, the continuation names its previous response and loads its chain in a child span', () => {
    const turns = spans.filter((s) => s.name === 'chat openresponses-deterministic' && s.traceId !== CALLER_TRACE);
    const first = only(turns, (s) => s.attributes['gen_ai.response.id'] === firstId);
    expect(first.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
    const second = only(
      turns,
      (s) =>
        s.attributes['gen_ai.response.finish_reasons']?.toString() === 'stop' &&
        childrenOf(spans, s).some((c) => c.name === 'store getChain'),
    );
    expect(
      childrenOf(spans, second)
        .map((s) => s.name)
        .sort(),
    ).toEqual(['store getChain', 'store put']);
    // The continuation names the turn it continues (linking to that turn's gen_ai.response.id).
    expect(second.attributes['openresponses.previous_response_id']).toBe(firstId);
    expect(first.attributes['openresponses.previous_response_id']).toBeUndefined();
    const getChain = only(childrenOf(spans, second), (s) => s.name === 'store getChain');
    expect(getChain.attributes).toMatchObject({
      'db.operation.name': 'getChain',
      'openresponses.store': 'InMemoryResponseStore',
    });
    // Each request its own trace (no caller trace given), the turn under its server span.
    const server = only(spans, (s) => s.spanId === second.parentSpanId);
    expect(server).toMatchObject({ kind: SPAN_KIND.server, name: 'POST /v1/responses', parentSpanId: undefined });
  });

  test('a gateway turn: a client span per upstream call under the GenAI span, its traceparent at the upstream', () => {
    const turn = only(spans, (s) => s.name === 'chat llama3.2');
    expect(turn.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'llama3.2',
      'gen_ai.operation.name': 'chat',
    });
    expect(turn.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const client = only(childrenOf(spans, turn), (s) => s.kind === SPAN_KIND.client);
    const port = Number(new URL(upstream.baseUrl).port);
    expect(client).toMatchObject({
      name: 'POST',
      attributes: {
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'server.port': port,
        'url.full': `${upstream.baseUrl}/chat/completions`,
        'http.response.status_code': 200,
      },
    });
    const received = upstream.received.filter((request) => request.body.model === 'llama3.2');
    expect(received.map((request) => request.headers.traceparent)).toEqual([
      `00-${client.traceId}-${client.spanId}-01`,
    ]);
    // Every upstream call (the failing ones too) carried its own client span's context.
    const clients = new Set(
      spans.filter((s) => s.kind === SPAN_KIND.client).map((s) => `00-${s.traceId}-${s.spanId}-01`),
    );
    const calls = upstream.received.filter(
      (request) => request.path === '/v1/chat/completions' && request.body.model !== 'unsampled-model',
    );
    expect(calls).toHaveLength(4);
    for (const call of calls) expect(clients).toContain(call.headers.traceparent);
    for (const call of upstream.received) {
      expect(call.headers.baggage).toBeUndefined();
      expect(call.headers.tracestate).toBeUndefined();
    }
  });

  test('a caller trace that is not sampled: no span is recorded, the upstream gets the trace, not sampled', () => {
    expect(spans.filter((s) => s.traceId === UNSAMPLED_TRACE)).toEqual([]);
    const [call, ...others] = upstream.received.filter((request) => request.body.model === 'unsampled-model');
    expect(others).toEqual([]);
    expect(call!.headers.traceparent).toMatch(new RegExp(`^00-${UNSAMPLED_TRACE}-[0-9a-f]{16}-00$`));
  });

  test('a WebSocket turn: a server span per turn under the upgrade traceparent, the GenAI span inside', () => {
    const server = only(spans, (s) => s.traceId === socketTrace && s.kind === SPAN_KIND.server);
    expect(server).toMatchObject({
      name: 'response.create',
      parentSpanId: CALLER_SPAN,
      attributes: { 'http.route': '/v1/responses', 'network.protocol.name': 'websocket' },
    });
    expect(childrenOf(spans, server).map((s) => s.name)).toEqual(['chat openresponses-deterministic']);
  });

  test('failures: a 429 upstream and a cut stream mark the GenAI and client spans with error.type', () => {
    const limited = only(spans, (s) => s.name === 'chat status-429');
    expect(limited).toMatchObject({ statusCode: 2, attributes: { 'error.type': 'rate_limited' } });
    expect(only(childrenOf(spans, limited), (s) => s.kind === SPAN_KIND.client)).toMatchObject({
      statusCode: 2,
      attributes: { 'http.response.status_code': 429, 'error.type': '429' },
    });
    // The server answered the 429 as asked: not a server error.
    const server = only(spans, (s) => s.spanId === limited.parentSpanId);
    expect(server).toMatchObject({ statusCode: 0, attributes: { 'http.response.status_code': 429 } });
    expect(server.attributes['error.type']).toBeUndefined();
    const cut = only(spans, (s) => s.name === 'chat cut');
    expect(cut).toMatchObject({
      statusCode: 2,
      attributes: { 'error.type': 'upstream_stream_cut', 'gen_ai.response.finish_reasons': ['error'] },
    });
    // The upstream answered 200, then broke: the client span carries the same failure.
    expect(only(childrenOf(spans, cut), (s) => s.kind === SPAN_KIND.client)).toMatchObject({
      statusCode: 2,
      attributes: { 'http.response.status_code': 200, 'error.type': 'upstream_stream_cut' },
    });
  });

  test('no prompt, completion or key is exported unless content capture is on', () => {
    const exported = Buffer.concat(receiver.requests.map((request) => request.body)).toString('utf8');
    expect(exported.length).toBeGreaterThan(1000);
    // The prompt words, the tool output, the keys.
    for (const secret of [SECRET_WORD, 'temperature', KEY, UPSTREAM_KEY]) expect(exported).not.toContain(secret);
    // Failures are still told: the exception event names the spec error type and code, not its words.
    const messages = spans.flatMap((span) => span.events.map((event) => event.attributes['exception.message']));
    expect(messages).toContain('invalid_request: upstream_rejected_request');
    for (const span of spans)
      expect(Object.keys(span.attributes).filter((name) => /messages|instructions/.test(name))).toEqual([]);
  });

  test('--log-format json: one JSON line per request with route, status, model, tokens and trace id; no key or content', () => {
    const lines = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(11);
    const streamed = lines[0]!;
    expect(streamed).toMatchObject({
      method: 'POST',
      route: '/v1/responses',
      path: '/v1/responses',
      status: 200,
      model: 'openresponses-deterministic',
      traceId: CALLER_TRACE,
    });
    expect(streamed.requestId).toMatch(/^req_/);
    expect(streamed.inputTokens).toBeGreaterThan(0);
    expect(streamed.outputTokens).toBeGreaterThan(0);
    expect(lines[3]).toMatchObject({ model: 'llama3.2', status: 200 });
    expect(lines[4]).toMatchObject({ model: 'status-429', status: 429 });
    expect(lines[5]).toMatchObject({ model: 'status-400', status: 400 });
    expect(lines[7]).toMatchObject({ method: 'GET', route: '/v1/responses/:id', status: 200 });
    expect(lines[8]).toMatchObject({ method: 'PROPFIND', path: '/v1/responses' });
    // The WebSocket turn: a line of its own, under the upgrade's trace.
    // Not sampled, but propagated: the log names the caller's trace.
    expect(lines[9]).toMatchObject({ model: 'unsampled-model', status: 200, traceId: UNSAMPLED_TRACE });
    expect(lines[10]).toMatchObject({
      method: 'response.create',
      route: '/v1/responses',
      status: 200,
      model: 'openresponses-deterministic',
      traceId: socketTrace,
    });
    expect(lines[10]!.requestId).toMatch(/^req_/);
    expect(lines[10]!.outputTokens).toBeGreaterThan(0);
    expect(stdout).not.toContain(SECRET_WORD);
    expect(stdout).not.toContain(UPSTREAM_KEY);
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(KEY);
  });
});

/** Metric names in every http/json metrics export the receiver got. */
function exportedMetricNames(receiver: OtlpReceiver): Set<string> {
  const names = new Set<string>();
  for (const request of receiver.requests.filter((r) => r.path === '/v1/metrics' && r.contentType.includes('json'))) {
    const body = JSON.parse(request.body.toString('utf8')) as {
      resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Array<{ name: string }> }> }>;
    };
    for (const resource of body.resourceMetrics)
      for (const scope of resource.scopeMetrics) for (const metric of scope.metrics) names.add(metric.name);
  }
  return names;
}

describe('the same environment, other settings', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  test('content capture opted in: the prompt, the instructions and the completion are on the GenAI span; text log lines hold none of it', async () => {
    receiver.requests.length = 0;
    // Spans over http/json: the SDK's exporter, as before the CLI's own (which the other tests use).
    const env = {
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    };
    const cli = await startTracedCli(receiver, env, ['--log-format', 'text']);
    const answer = await post(cli.url, {
      model: 'openresponses-deterministic',
      instructions: 'Be brief.',
      input: `Please repeat ${SECRET_WORD}`,
    });
    const { output } = (await answer.json()) as { output: Array<{ content: Array<{ text: string }> }> };
    await stop(cli.child);
    expect(receiver.requests.find((r) => r.path === '/v1/traces')?.contentType).toBe('application/json');
    const turn = only(receiver.spans(), (s) => s.name === 'chat openresponses-deterministic');
    expect(JSON.parse(String(turn.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'Be brief.' },
    ]);
    expect(JSON.parse(String(turn.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: `Please repeat ${SECRET_WORD}` }] },
    ]);
    expect(JSON.parse(String(turn.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: output[0]!.content[0]!.text }], finish_reason: 'stop' },
    ]);
    // Metrics over OTLP from the same environment, flushed on SIGTERM with the spans.
    expect(exportedMetricNames(receiver)).toContain('gen_ai.server.request.duration');
    const lines = cli
      .stdout()
      .split('\n')
      .filter((line) => / POST \/v1\/responses /.test(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\S+Z POST \/v1\/responses 200 [\d.]+ ms req_\S+ model=openresponses-deterministic tokens=\d+\+\d+ trace=[0-9a-f]{32}$/,
    );
    expect(cli.stdout()).not.toContain(SECRET_WORD);
    expect(lines[0]).not.toContain(KEY);
  });

  test('http/protobuf: the exports arrive as protobuf, spans and metrics', async () => {
    receiver.requests.length = 0;
    const cli = await startTracedCli(receiver, { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
    expect((await post(cli.url, { model: 'openresponses-deterministic', input: 'Hi' })).status).toBe(200);
    await stop(cli.child);
    const paths = receiver.requests.map((request) => `${request.path} ${request.contentType}`);
    expect(new Set(paths)).toEqual(
      new Set(['/v1/traces application/x-protobuf', '/v1/metrics application/x-protobuf']),
    );
    // The span names travel as protobuf strings.
    const traces = Buffer.concat(receiver.requests.filter((r) => r.path === '/v1/traces').map((r) => r.body));
    expect(traces.includes('chat openresponses-deterministic')).toBe(true);
  });

  test('OTEL_SDK_DISABLED=true: nothing is exported, and the log names no trace', async () => {
    receiver.requests.length = 0;
    const cli = await startTracedCli(receiver, { OTEL_SDK_DISABLED: 'true' }, ['--log-format', 'json']);
    const streamed = await post(
      cli.url,
      { model: 'llama3.2', input: 'Hi', stream: true },
      { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    expect(await streamed.text()).toContain('response.completed');
    await stop(cli.child);
    expect(receiver.requests).toEqual([]);
    expect(cli.stdout()).not.toContain('OpenTelemetry:');
    const line = JSON.parse(
      cli
        .stdout()
        .split('\n')
        .find((text) => text.startsWith('{'))!,
    ) as Record<string, unknown>;
    expect(line).toMatchObject({ route: '/v1/responses', status: 200, model: 'llama3.2' });
    expect(line.traceId).toBeUndefined();
    // No SDK, no propagator: the upstream gets no traceparent of ours.
    expect(upstream.received.at(-1)!.headers.traceparent).toBeUndefined();
  });
});
