// Sampling decided once per request, before the SDK (issue 35: "spans that are not sampled cost nothing beyond
// a check"). In a process of its own (test/head-sampling-turns.ts: the SDK loads there as in the CLI), the SDK
// registered by `startTelemetry` with OTEL_TRACES_SAMPLER, OTLP http/json to test/otlp-receiver.ts, and a
// gateway service in front of the replay upstream; every span the SDK's tracer is asked to start is counted
// (its sampler runs inside: a dropped span still costs ids, a clock and attributes there). A trace the
// sampler drops makes no SDK span at all, and the caller's W3C traceparent still reaches the upstream
// (unchanged, as W3C trace-context lets a participant pass it on; its sampled flag cleared when this server
// dropped a sampled trace); a trace the caller sampled gives the whole tree under a parent-based sampler; a
// ratio is drawn once per new trace, and the SDK records every trace the head kept.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startReplayUpstream, type ReplayUpstream } from '../src/testing/index.js';
import { builtScript } from './built-script.js';
import { type OtlpReceiver, type ReceivedSpan, SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

const CALLER_TRACE = '6cf92f3577b34da6a3ce929d0e0e4738';
const SAMPLED_TRACE = 'a6cf92f3577b34da6a3ce929d0e0e473';
const CALLER_SPAN = '20f067aa0ba902b9';
const QUARTER_TURNS = 240;

let upstream: ReplayUpstream;
let receiver: OtlpReceiver;
/** Per scenario, per turn: the SDK spans it started. */
let started: string[][][];
let spans: ReceivedSpan[];

beforeAll(async () => {
  upstream = await startReplayUpstream();
  receiver = await startOtlpReceiver();
  const scenarios = [
    {
      sampler: 'parentbased_traceidratio',
      ratio: '0',
      turns: [
        { model: 'head-root' },
        { model: 'head-unsampled', traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` },
        { model: 'head-sampled', traceparent: `00-${SAMPLED_TRACE}-${CALLER_SPAN}-01` },
      ],
    },
    {
      sampler: 'traceidratio',
      ratio: '0',
      turns: [{ model: 'head-ratio', traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }],
    },
    {
      sampler: 'parentbased_traceidratio',
      ratio: '0.25',
      turns: Array.from({ length: QUARTER_TURNS }, () => ({ model: 'head-quarter' })),
    },
  ];
  // Asynchronously: the receiver and the upstream answer in this process meanwhile.
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    [await builtScript('head-sampling-turns'), receiver.url, upstream.baseUrl, JSON.stringify(scenarios)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, stderr).toBe(0);
  started = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string[][]);
  spans = receiver.spans();
});
afterAll(async () => {
  await upstream.close();
  await receiver.close();
});

/** The traceparent the upstream received for the turn of `model`. */
const sentUpstream = (model: string) => {
  const calls = upstream.received.filter((call) => (call.body as { model?: string }).model === model);
  expect(calls).toHaveLength(1);
  return calls[0]!.headers.traceparent;
};

test('parentbased_traceidratio at 0%, a new trace: no SDK span, nothing exported, no traceparent upstream', () => {
  expect(started[0]![0]).toEqual([]);
  expect(sentUpstream('head-root')).toBeUndefined();
  expect(spans.filter((span) => span.name === 'chat head-root')).toEqual([]);
});

test("parentbased_traceidratio at 0%, a caller's trace not sampled: no SDK span, its traceparent goes on unchanged", () => {
  expect(started[0]![1]).toEqual([]);
  expect(sentUpstream('head-unsampled')).toBe(`00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
  expect(spans.filter((span) => span.traceId === CALLER_TRACE)).toEqual([]);
});

test("parentbased_traceidratio at 0%, a caller's sampled trace: the tree request -> turn -> upstream call", () => {
  expect(started[0]![2]).toEqual(expect.arrayContaining(['POST', 'chat head-sampled']));
  const tree = spans.filter((span) => span.traceId === SAMPLED_TRACE);
  const server = tree.find((span) => span.kind === SPAN_KIND.server)!;
  expect(server.parentSpanId).toBe(CALLER_SPAN);
  const chat = tree.find((span) => span.name === 'chat head-sampled')!;
  expect(chat.parentSpanId).toBe(server.spanId);
  const client = tree.find((span) => span.kind === SPAN_KIND.client)!;
  expect(client.parentSpanId).toBe(chat.spanId);
  expect(sentUpstream('head-sampled')).toBe(`00-${SAMPLED_TRACE}-${client.spanId}-01`);
});

test("traceidratio at 0% (not parent-based): a caller's sampled trace is dropped, passed on with its flag cleared", () => {
  expect(started[1]![0]).toEqual([]);
  expect(sentUpstream('head-ratio')).toBe(`00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
});

test('parentbased_traceidratio at 25%: about a quarter of new traces, each recorded whole (the SDK draws no second time)', () => {
  const kept = started[2]!.filter((names) => names.length > 0);
  // 60 expected of 240; a binomial(240, 0.25) falls outside 30..90 with a chance of about 1e-7.
  expect(kept.length).toBeGreaterThan(30);
  expect(kept.length).toBeLessThan(90);
  for (const names of kept) expect(names).toEqual(expect.arrayContaining(['POST', 'chat head-quarter']));
  expect(spans.filter((span) => span.name === 'chat head-quarter')).toHaveLength(kept.length);
});
