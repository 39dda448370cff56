// A turn's metric records through series bound once per label set (telemetry/metrics.ts `TurnSeries`,
// `answerSeries`, tenant-usage.ts) against the path they replaced, kept here as the reference: every value
// recorded with its attribute set and its series looked up per value (the parent's `MeteredTurn.ended`, the
// answer stage's and `countTenantUsage`'s records). Thousands of turns with varied providers, models (listed,
// unlisted, too long, past the caps of kept attribute sets and series), errors, streaming, token counts, answers
// and tenants: what the own aggregation collects (what `GET /metrics` and the OTLP export read, own-metrics.ts)
// is the same series for series, value for value.
import { type Attributes, type MeterProvider, metrics } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { ServiceEventStream, ServiceRequest, ServiceResponse } from '../src/exchange.js';
import { httpMetrics } from '../src/handler/middleware.js';
import {
  Aggregation,
  type InstrumentSnapshot,
  MAX_SERIES,
  OwnHistogram,
  ownMetrics,
  recordOwnMetrics,
} from '../src/telemetry/aggregation.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
  METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
  METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  METRIC_OPENRESPONSES_OVERHEAD_DURATION,
  reportedName,
} from '../src/telemetry/attributes.js';
import { httpRequestAttributes } from '../src/telemetry/answer-metrics.js';
import { BUCKETS, meterTurn } from '../src/telemetry/metrics.js';
import { ModelLabels } from '../src/telemetry/model-labels.js';
import { countTenantUsage, TENANT_NAME } from '../src/telemetry/tenant-usage.js';

/** The clock reads a turn makes, answered in order from this list (each turn says what its reads return). */
const reads: number[] = [];
beforeAll(() => {
  // A provider whose histograms and counters are the own aggregation's (its gauges are never read here).
  const gauges = { createObservableUpDownCounter: () => ({ addCallback: () => {} }) };
  metrics.setGlobalMeterProvider({ getMeter: () => gauges } as unknown as MeterProvider);
  recordOwnMetrics();
});
afterAll(() => {
  vi.restoreAllMocks();
  metrics.disable();
});

/** The reference: the same instruments, recorded as the replaced path did (attributes per value). */
const reference = new Aggregation();
const old = {
  serverRequestDuration: reference.histogram(METRIC_GEN_AI_SERVER_REQUEST_DURATION, 's', '', BUCKETS.operation),
  serverTimeToFirstToken: reference.histogram(METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN, 's', '', BUCKETS.firstToken),
  serverTimePerOutputToken: reference.histogram(
    METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
    's',
    '',
    BUCKETS.perOutputToken,
  ),
  clientOperationDuration: reference.histogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, 's', '', BUCKETS.operation),
  clientTimeToFirstChunk: reference.histogram(METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK, 's', '', BUCKETS.operation),
  clientTokenUsage: reference.histogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, '{token}', '', BUCKETS.tokens),
  httpServerRequestDuration: reference.histogram(METRIC_HTTP_SERVER_REQUEST_DURATION, 's', '', BUCKETS.http),
  overheadDuration: reference.histogram(METRIC_OPENRESPONSES_OVERHEAD_DURATION, 's', '', BUCKETS.overhead),
  tenantTokens: reference.counter('openresponses.tenant.tokens', '{token}', ''),
  tenantTurns: reference.counter('openresponses.tenant.turns', '{turn}', ''),
};

/** One turn's facts, as its meter hears them. */
interface Turn {
  provider: string;
  model: string;
  labelled: boolean;
  streaming: boolean;
  startedAt: number;
  callStartedAt: number;
  firstAt?: number;
  finishedAt?: number;
  endedAt: number;
  inputTokens: number;
  outputTokens: number;
  errorType?: string;
}

/** The replaced `MeteredTurn.ended`: each value with its attribute set. */
function recordTurnAsBefore(turn: Turn, label: string): void {
  const attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
    [ATTR_GEN_AI_PROVIDER_NAME]: turn.provider,
    [ATTR_GEN_AI_REQUEST_MODEL]: reportedName(label),
  };
  const failed =
    turn.errorType === undefined ? attributes : { ...attributes, [ATTR_ERROR_TYPE]: reportedName(turn.errorType) };
  const { startedAt, firstAt, finishedAt, endedAt } = turn;
  // A meter hears the tokens at the model's finish only.
  const outputTokens = finishedAt === undefined ? 0 : turn.outputTokens;
  old.serverRequestDuration.record((endedAt - startedAt) / 1000, failed);
  if (turn.errorType === undefined && firstAt !== undefined) {
    old.serverTimeToFirstToken.record((firstAt - startedAt) / 1000, attributes);
    if (outputTokens > 1)
      old.serverTimePerOutputToken.record((endedAt - firstAt) / 1000 / (outputTokens - 1), attributes);
  }
  if (turn.provider === 'openresponses') return;
  old.clientOperationDuration.record(((finishedAt ?? endedAt) - turn.callStartedAt) / 1000, failed);
  if (turn.streaming && firstAt !== undefined)
    old.clientTimeToFirstChunk.record((firstAt - turn.callStartedAt) / 1000, attributes);
  if (finishedAt !== undefined) {
    old.clientTokenUsage.record(turn.inputTokens, { ...attributes, [ATTR_GEN_AI_TOKEN_TYPE]: 'input' });
    old.clientTokenUsage.record(outputTokens, { ...attributes, [ATTR_GEN_AI_TOKEN_TYPE]: 'output' });
  }
}

/** The replaced `countTenantUsage`. */
function countTenantAsBefore(tenant: string, usage: Parameters<typeof countTenantUsage>[1]): void {
  old.tenantTurns.add(1, { [TENANT_NAME]: tenant });
  for (const [type, tokens] of [
    ['input', usage.inputTokens],
    ['cached', usage.cachedTokens],
    ['output', usage.outputTokens],
    ['reasoning', usage.reasoningTokens],
  ] as const)
    if (tokens > 0) old.tenantTokens.add(tokens, { [TENANT_NAME]: tenant, [ATTR_GEN_AI_TOKEN_TYPE]: type });
}

/** A small seeded generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const series = (snapshots: InstrumentSnapshot[]) =>
  Object.fromEntries(
    snapshots.map((instrument) => [
      instrument.name,
      {
        boundaries: instrument.boundaries,
        series: instrument.series.map(({ startTime: _, ...rest }) => rest),
      },
    ]),
  );

test('bound series collect what recording each value with its attribute set collected, past every cap', async () => {
  const next = random(35);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const listed = ['gpt-4o', 'claude-sonnet', 'stub-model'];
  const labels = new ModelLabels(() => [listed]);
  labels.refresh(0);
  // Its listing's age is set by a clock read of its own, in a promise: settled before the clock is scripted.
  await new Promise((resolve) => setImmediate(resolve));
  vi.spyOn(performance, 'now').mockImplementation(() => reads.shift() ?? Number.NaN);
  const stage = httpMetrics();
  const longName = 'm'.repeat(300);
  // Enough distinct models, errors and tenants to pass MAX_SERIES (and the kept attribute sets' bound).
  const turns = 3 * (MAX_SERIES + 500);
  for (let i = 0; i < turns; i++) {
    // Every third turn names a model (unlisted, so only an unlabelled one is reported as it is) and a tenant of its own.
    const many = i % 3 === 0;
    const labelled = !many && next() < 0.5;
    const provider = pick(['openai', 'openresponses', 'anthropic']);
    const model = many ? `model-${i}` : pick([...listed, 'unlisted', longName]);
    // Times in any order: a value before its start (a negative duration) is dropped, but most turns end after they start.
    const at = () => Math.round(next() * 40_000) / 7;
    const startedAt = at();
    const turn: Turn = {
      provider,
      model,
      labelled,
      streaming: next() < 0.5,
      startedAt,
      callStartedAt: at(),
      endedAt: next() < 0.9 ? startedAt + at() : at(),
      inputTokens: Math.floor(next() * 5000),
      outputTokens: pick([0, 1, 2, 17, 70_000_000]),
      errorType: next() < 0.3 ? pick(['server_error', 'rate_limit_exceeded', longName, `code-${i}`]) : undefined,
    };
    if (next() < 0.8) turn.firstAt = at();
    if (next() < 0.8) turn.finishedAt = at();
    // The meter's reads: its upstream call's start (a client turn's), first output, finish (a client turn's), end.
    const client = provider !== 'openresponses';
    if (client) reads.push(turn.callStartedAt);
    const meter = meterTurn(turn.startedAt, model, provider, turn.streaming, labelled ? labels : undefined)!;
    if (turn.firstAt !== undefined) {
      reads.push(turn.firstAt);
      meter.firstOutput();
    }
    if (turn.finishedAt !== undefined) {
      if (client) reads.push(turn.finishedAt);
      meter.finished(turn.inputTokens, turn.outputTokens);
    }
    reads.push(turn.endedAt);
    meter.ended(turn.errorType);
    recordTurnAsBefore(turn, labelled ? labels.label(model) : model);
    expect(reads).toEqual([]);

    const tenant = many ? `tenant-${i}` : pick(['open', 'acme', 'key_0123abcd']);
    const usage = {
      inputTokens: turn.inputTokens,
      cachedTokens: pick([0, 3]),
      outputTokens: turn.outputTokens,
      reasoningTokens: pick([0, 0, 9]),
    };
    countTenantUsage(tenant, usage);
    countTenantAsBefore(tenant, usage);

    // Its answer: the overhead of a turn request, the duration (of a JSON body now, of a stream once written).
    const method = pick(['POST', 'GET', 'BREW']);
    const route = pick(['/v1/responses', '/v1/responses/{id}', undefined]);
    const status = pick([200, 200, 400, 429, 500, 503]);
    const request = { method, path: '/x', route, turn: next() < 0.8 ? { upstreamMs: next() * 30 } : undefined };
    const streamed = next() < 0.3;
    const body: ServiceEventStream | string = streamed ? { pipe: async () => {} } : '{}';
    const response: ServiceResponse = { status, headers: {}, body };
    const started = at();
    const now = at();
    reads.push(now);
    const answered = stage.answered(request as unknown as ServiceRequest, response, started);
    const attributes: Attributes = httpRequestAttributes(method, route, status);
    if (request.turn)
      old.overheadDuration.record(Math.max(0, now - started - request.turn.upstreamMs) / 1000, attributes);
    if (streamed) {
      const end = at();
      reads.push(end);
      await (answered.body as ServiceEventStream).pipe(() => {});
      old.httpServerRequestDuration.record((end - started) / 1000, attributes);
    } else old.httpServerRequestDuration.record((now - started) / 1000, attributes);
    expect(reads).toEqual([]);
  }
  const collected = series(ownMetrics().collect());
  expect(collected).toEqual(series(reference.collect()));
  // The caps were reached: an overflow series in the turn, token, tenant and answer instruments alike.
  const overflowing = Object.entries(collected)
    .filter(([, instrument]) => instrument.series.some((s) => s.attributes['otel.metric.overflow'] === true))
    .map(([name]) => name);
  expect(overflowing).toEqual(
    expect.arrayContaining([
      METRIC_GEN_AI_SERVER_REQUEST_DURATION,
      METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
      'openresponses.tenant.tokens',
      'openresponses.tenant.turns',
    ]),
  );
});

test("a turn like the last one finds no series per value and no Map entry: its label sets' series were bound once", () => {
  const labels = new ModelLabels(() => [['stub-model']]);
  const turn = () => {
    reads.push(1, 2, 3, 4);
    const meter = meterTurn(0, 'stub-model', 'openai', true, labels)!;
    meter.firstOutput();
    meter.finished(12, 30);
    meter.ended();
    countTenantUsage('open', { inputTokens: 12, cachedTokens: 0, outputTokens: 30, reasoningTokens: 0 });
    reads.push(5);
    httpMetrics().answered(
      { method: 'POST', path: '/v1/responses', route: '/v1/responses', turn: {} } as ServiceRequest,
      { status: 200, headers: {}, body: '{}' },
      0,
    );
  };
  turn();
  const lookups = vi.spyOn(Object.getPrototypeOf(OwnHistogram.prototype), 'series');
  const mapGet = vi.spyOn(Map.prototype, 'get');
  let entries: number;
  try {
    turn();
    turn();
    entries = mapGet.mock.calls.length;
    expect(lookups).not.toHaveBeenCalled();
  } finally {
    lookups.mockRestore();
    mapGet.mockRestore();
  }
  expect(entries).toBe(0);
});
