// The server's own spans in their fixed shape (telemetry/own-spans.ts) against the API path: the same turns
// (embedded and gateway, JSON and streamed, a caller's trace, a continuation, failures, content capture) through
// the service under the CLI's own tracer, once each way (test/own-spans-cases.ts, a child process: the SDK's
// serializer cannot load in the test runner). Each way's export bytes equal the SDK serializer's for its spans,
// and both decode to the same spans, ids and times aside.
import { spawnSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { builtScript } from './built-script.js';
import { protobufSpans, type ReceivedSpan } from './otlp-receiver.js';

interface Run {
  fixedShapes: boolean;
  ours: string;
  theirs: string;
  fixed: string[];
}

/** Spans with ids as positions (parents by position), and response ids (random) named by first appearance. */
function comparable(spans: ReceivedSpan[]) {
  const ids = spans.map((span) => span.spanId);
  const traces: string[] = [];
  const positioned = spans.map(({ traceId, spanId, parentSpanId, ...rest }) => {
    if (!traces.includes(traceId)) traces.push(traceId);
    const parent = parentSpanId === undefined ? undefined : ids.includes(parentSpanId) ? ids.indexOf(parentSpanId) : -1;
    return { ...rest, trace: traces.indexOf(traceId), parent };
  });
  const responses: string[] = [];
  return JSON.parse(
    JSON.stringify(positioned).replace(/resp_[0-9a-f]{32}/g, (id) => {
      if (!responses.includes(id)) responses.push(id);
      return `response ${responses.indexOf(id)}`;
    }),
  ) as unknown;
}

test("the server's spans in their fixed shape export what the API path exports, byte for byte as the SDK would", async () => {
  const run = spawnSync(process.execPath, [await builtScript('own-spans-cases')], {
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  const [fixed, api] = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Run) as [Run, Run];
  expect([fixed.fixedShapes, api.fixedShapes]).toEqual([true, false]);
  // Every span takes the fixed shape (request, turn, upstream call, store calls), and keeps it to its end but
  // the last two turns' spans: content capture sets keys their shape has no field for.
  expect(fixed.fixed.filter((shape) => shape !== 'fixed')).toEqual(['general', 'general']);
  expect(api.fixed.filter(Boolean)).toEqual([]);
  for (const { ours, theirs } of [fixed, api]) {
    expect(ours.length).toBeGreaterThan(20_000);
    expect(ours).toBe(theirs);
  }
  const spans = protobufSpans(Buffer.from(fixed.ours, 'hex'));
  expect(spans).toHaveLength(fixed.fixed.length);
  // Internal (turns, store calls), server and client spans.
  expect(new Set(spans.map((span) => span.kind))).toEqual(new Set([1, 2, 3]));
  expect(spans.some((span) => span.name.startsWith('store '))).toBe(true);
  // Every turn's span has its attributes (a failure's error.type and exception event among them).
  const turns = spans.filter((span) => span.name.startsWith('chat'));
  expect(turns).toHaveLength(11);
  expect(turns.filter((span) => span.statusCode === 2).length).toBeGreaterThanOrEqual(4);
  expect(turns.some((span) => span.events.some((event) => event.name === 'exception'))).toBe(true);
  expect(turns.some((span) => 'gen_ai.input.messages' in span.attributes)).toBe(true);
  expect(turns.some((span) => 'openresponses.previous_response_id' in span.attributes)).toBe(true);
  expect(comparable(spans)).toEqual(comparable(protobufSpans(Buffer.from(api.ours, 'hex'))));
});
