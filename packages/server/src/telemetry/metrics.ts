// The server's metrics, in OpenTelemetry's semantic conventions (GenAI server and client metrics, HTTP server
// duration) plus the operator's own gauges and counters. Only `@opentelemetry/api`: the instruments come from
// the global MeterProvider, a no-op until an SDK is registered (the Node CLI registers one with --metrics or
// the OTLP environment). While none is, every function here returns after one lookup and records nothing.
import { type Attributes, createNoopMeter, type Meter, type MeterProvider, metrics } from '@opentelemetry/api';
import { type Aggregation, type BoundCounter, type BoundHistogram, ownRecording } from './aggregation.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_PROVIDERS,
  GEN_AI_TOKEN_TYPES,
  AttributeSets,
  attributeSet,
  INSTRUMENTATION_SCOPE,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
  METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
  METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
  METRIC_HTTP_SERVER_REQUEST_DURATION,
  METRIC_OPENRESPONSES_OVERHEAD_DURATION,
  reportedName,
} from './attributes.js';
import type { AnswerSeries } from './answer-metrics.js';
import { observeGaugesOn } from './gauges.js';
import type { ModelLabels } from './model-labels.js';
import type { TenantSeries } from './tenant-usage.js';
import { apiRegistry } from './span-scope.js';
import { clock } from './clock.js';

/** `current.registered` before the API was first asked: no registry value is this one. */
const NOT_ASKED: unique symbol = Symbol('not asked');

/** Why a request or connection was refused with a 429 (`rate_limit_exceeded`, `server_busy`, …). */
export const REJECTION_REASON = 'openresponses.rejection.reason';

/** Bucket boundaries the conventions recommend, per instrument. */
export const BUCKETS = {
  /** gen_ai.server.request.duration, gen_ai.client.operation.duration and time_to_first_chunk (seconds). */
  operation: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
  /** gen_ai.server.time_to_first_token (seconds). */
  firstToken: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0],
  /** gen_ai.server.time_per_output_token (seconds). */
  perOutputToken: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5],
  /** gen_ai.client.token.usage (tokens). */
  tokens: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  /** http.server.request.duration (seconds). */
  http: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  /** openresponses.server.overhead.duration (seconds): a gateway's own time is a fraction of a millisecond to a few. */
  overhead: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
} as const;

/** What the server records into: a histogram of the SDK (through the API) or of its own aggregation. */
export interface Histogram {
  record(value: number, attributes: Attributes): void;
  /** The recorder of one attribute set's values (the own aggregation finds its series once, not per value). */
  bind(attributes: Attributes): BoundHistogram;
}
/** A monotonic counter, of the SDK or of the own aggregation. */
export interface Counter {
  add(value: number, attributes: Attributes): void;
  bind(attributes: Attributes): BoundCounter;
}

export interface Instruments {
  serverRequestDuration: Histogram;
  serverTimeToFirstToken: Histogram;
  serverTimePerOutputToken: Histogram;
  clientOperationDuration: Histogram;
  clientTimeToFirstChunk: Histogram;
  clientTokenUsage: Histogram;
  httpServerRequestDuration: Histogram;
  overheadDuration: Histogram;
  rejections: Counter;
  tenantTokens: Counter;
  tenantTurns: Counter;
  /**
   * These instruments' recorders, bound once per label set (a turn's provider and model, a failed turn's error
   * too, an answer's method, route and status, a tenant) as the first value of the set comes.
   */
  readonly bound: {
    readonly turns: AttributeSets<TurnSeries>;
    readonly failedTurns: AttributeSets<FailedTurnSeries>;
    readonly answers: AttributeSets<AnswerSeries>;
    readonly tenants: AttributeSets<TenantSeries>;
  };
}

/** `registered`: what the API's registry held when the API was last asked (see `instruments`). */
let current: { registered: unknown; provider: unknown; own: Aggregation | undefined; instruments?: Instruments } = {
  registered: NOT_ASKED,
  provider: undefined,
  own: undefined,
};

/**
 * The instruments of the registered MeterProvider, made once per provider; undefined while only the no-op
 * provider is registered (so callers skip even building their attributes).
 */
export function instruments(): Instruments | undefined {
  // The API is asked again only when its registry holds another provider (its lookup checks versions on each
  // call, and a turn asks three times).
  const registered = apiRegistry()?.metrics;
  const own = ownRecording();
  if (registered === current.registered && own === current.own) return current.instruments;
  const provider = metrics.getMeterProvider();
  if (provider !== current.provider || own !== current.own)
    current = { registered, provider, own, instruments: instrumentsOf(provider, own) };
  else current.registered = registered;
  return current.instruments;
}

/**
 * The instruments made for each provider (with the own aggregation they record into): a provider registered
 * again (after `metrics.disable()` or another provider) finds its own. A second set would add each histogram
 * and counter to the own aggregation again, so that a scrape repeated every metric family, each holding only the
 * values recorded since its set was made, and would add the gauges' callbacks again.
 */
const madeFor = new WeakMap<MeterProvider, { own: Aggregation | undefined; instruments: Instruments | undefined }>();

function instrumentsOf(provider: MeterProvider, own: Aggregation | undefined): Instruments | undefined {
  const made = madeFor.get(provider);
  if (made !== undefined && made.own === own) return made.instruments;
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  // The API's no-op provider hands out its one no-op meter.
  const instruments = meter === createNoopMeter() ? undefined : create(meter, own);
  madeFor.set(provider, { own, instruments });
  return instruments;
}

function create(meter: Meter, aggregation: Aggregation | undefined): Instruments {
  const histogram = (name: string, unit: string, description: string, buckets: readonly number[]): Histogram => {
    if (aggregation) return aggregation.histogram(name, unit, description, buckets);
    const made = meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: [...buckets] } });
    return {
      record: (value, attributes) => made.record(value, attributes),
      bind: (attributes) => ({ record: (value) => made.record(value, attributes) }),
    };
  };
  const counter = (name: string, unit: string, description: string): Counter => {
    if (aggregation) return aggregation.counter(name, unit, description);
    const made = meter.createCounter(name, { unit, description });
    return {
      add: (value, attributes) => made.add(value, attributes),
      bind: (attributes) => ({ add: (value) => made.add(value, attributes) }),
    };
  };
  observeGaugesOn(meter);
  return {
    serverRequestDuration: histogram(
      METRIC_GEN_AI_SERVER_REQUEST_DURATION,
      's',
      'Duration of a turn, from its request to its last output (stored when it is stored).',
      BUCKETS.operation,
    ),
    serverTimeToFirstToken: histogram(
      METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN,
      's',
      'Time from a turn request to its first output, for successful responses.',
      BUCKETS.firstToken,
    ),
    serverTimePerOutputToken: histogram(
      METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN,
      's',
      'Time per output token after the first, for successful responses.',
      BUCKETS.perOutputToken,
    ),
    clientOperationDuration: histogram(
      METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
      's',
      'Duration of an upstream model call, to its last part.',
      BUCKETS.operation,
    ),
    clientTimeToFirstChunk: histogram(
      METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
      's',
      'Time from an upstream streaming call to its first output chunk.',
      BUCKETS.operation,
    ),
    clientTokenUsage: histogram(
      METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
      '{token}',
      'Input and output tokens of an upstream model call, as the upstream reports them.',
      BUCKETS.tokens,
    ),
    httpServerRequestDuration: histogram(
      METRIC_HTTP_SERVER_REQUEST_DURATION,
      's',
      'Duration of HTTP requests, to the end of the answer (of the whole stream for SSE).',
      BUCKETS.http,
    ),
    overheadDuration: histogram(
      METRIC_OPENRESPONSES_OVERHEAD_DURATION,
      's',
      "The server's own time for a turn request: its duration minus the time its upstream calls kept it waiting (to the answer's headers for an event stream).",
      BUCKETS.overhead,
    ),
    rejections: counter(
      'openresponses.rejections',
      '{request}',
      'Requests and WebSocket connections refused with a 429, by reason.',
    ),
    tenantTokens: counter(
      'openresponses.tenant.tokens',
      '{token}',
      'Tokens of finished turns by tenant (named in the tenants file, or key_<digest>) and token type.',
    ),
    tenantTurns: counter('openresponses.tenant.turns', '{turn}', 'Finished turns by tenant.'),
    bound: {
      turns: new AttributeSets<TurnSeries>(),
      failedTurns: new AttributeSets<FailedTurnSeries>(),
      answers: new AttributeSets<AnswerSeries>(),
      tenants: new AttributeSets<TenantSeries>(),
    },
  };
}

/** Counts a 429 refusal (`reason`: the error code, such as `rate_limit_exceeded` or `server_busy`). */
export function countRejection(reason: string): void {
  instruments()?.rejections.add(
    1,
    attributeSet(`rejection\0${reason}`, () => ({ [REJECTION_REASON]: reason })),
  );
}

/** What a turn tells its meter; made only while metrics are on. */
export interface TurnMeter {
  /** The model's first output (a delta or a whole item) arrived. */
  firstOutput(): void;
  /**
   * The model's stream finished, with the tokens it reports; `withFirstOutput`: its finish came with its first
   * output, nothing waited between them (they share that clock read).
   */
  finished(inputTokens: number, outputTokens: number, withFirstOutput?: boolean): void;
  /** The turn ended: `errorType` when it failed (the error's code). */
  ended(errorType?: string): void;
}

/** A turn's histograms by provider and model, bound to their attribute sets at the first such turn. */
class TurnSeries {
  /** Their attributes: the operation, the provider and the model (as reported). */
  readonly attributes: Attributes;
  /** `gen_ai.server.request.duration`, `gen_ai.server.time_to_first_token`, `gen_ai.server.time_per_output_token`. */
  readonly requestDuration: BoundHistogram;
  readonly timeToFirstToken: BoundHistogram;
  readonly timePerOutputToken: BoundHistogram;
  /** `gen_ai.client.operation.duration` and `gen_ai.client.time_to_first_chunk` of its upstream call. */
  readonly operationDuration: BoundHistogram;
  readonly timeToFirstChunk: BoundHistogram;
  /** `gen_ai.client.token.usage` of input tokens, and of output tokens. */
  readonly inputTokens: BoundHistogram;
  readonly outputTokens: BoundHistogram;

  constructor(meters: Instruments, provider: string, model: string) {
    const turn: Attributes = Object.freeze({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: reportedName(model),
    });
    const typed = (type: string) => Object.freeze({ ...turn, [ATTR_GEN_AI_TOKEN_TYPE]: type });
    this.attributes = turn;
    this.requestDuration = meters.serverRequestDuration.bind(turn);
    this.timeToFirstToken = meters.serverTimeToFirstToken.bind(turn);
    this.timePerOutputToken = meters.serverTimePerOutputToken.bind(turn);
    this.operationDuration = meters.clientOperationDuration.bind(turn);
    this.timeToFirstChunk = meters.clientTimeToFirstChunk.bind(turn);
    this.inputTokens = meters.clientTokenUsage.bind(typed(GEN_AI_TOKEN_TYPES.input));
    this.outputTokens = meters.clientTokenUsage.bind(typed(GEN_AI_TOKEN_TYPES.output));
  }
}

/** A failed turn's durations, whose attributes add its `error.type` (its error code) to the turn's. */
interface FailedTurnSeries {
  readonly requestDuration: BoundHistogram;
  readonly operationDuration: BoundHistogram;
}

// The makers are given `meters` as a part (the same for every lookup in its own sets): functions made once, not a
// closure over `meters` made at every lookup.
const turnSeriesOf = (meters: Instruments, provider: string, model: string): TurnSeries =>
  meters.bound.turns.get(provider, model, meters, undefined, turnSeriesMade);
const turnSeriesMade = (provider: string, model: string, meters: Instruments) =>
  new TurnSeries(meters, provider, model);

const failedTurnSeriesOf = (meters: Instruments, provider: string, model: string, errorType: string) =>
  meters.bound.failedTurns.get(provider, model, errorType, meters, failedTurnSeriesMade);
const failedTurnSeriesMade = (
  provider: string,
  model: string,
  errorType: string,
  meters: Instruments,
): FailedTurnSeries => {
  const attributes = Object.freeze({
    ...turnSeriesOf(meters, provider, model).attributes,
    [ATTR_ERROR_TYPE]: reportedName(errorType),
  });
  return {
    requestDuration: meters.serverRequestDuration.bind(attributes),
    operationDuration: meters.clientOperationDuration.bind(attributes),
  };
};

/**
 * A meter for one turn that started at `startedAt` (`clock.now()`), whose model call starts now; undefined while
 * metrics are off. `providerName` is the serving provider's `gen_ai.provider.name`: a turn of any provider but this
 * server's own models (`openresponses`) is also a client operation toward its upstream. `streaming`: the model
 * streams to a watching client (time to first chunk is recorded only then). `gen_ai.request.model` is the model the
 * request named (a gateway route's upstream name is not used), as `labels` reports it (a name no provider lists is
 * `_OTHER`); `gen_ai.response.model` is left out, as it is always that same name here.
 */
export function meterTurn(
  startedAt: number,
  requestedModel: string,
  providerName: string,
  streaming: boolean,
  labels?: ModelLabels,
): TurnMeter | undefined {
  const meters = instruments();
  if (!meters) return undefined;
  // Asked now, read when the turn ends: the first turns usually find the names listed by then. Its age is
  // checked against the turn's start (a clock read less a turn; the names live a minute).
  labels?.refresh(startedAt);
  return new MeteredTurn(meters, startedAt, requestedModel, providerName, streaming, labels);
}

/**
 * One turn's meter: one object a turn (not a closure per method over a context of its own). The upstream
 * call's times (its start, its last part) are read only for a turn that records client metrics: a clock
 * read costs ~0.1 µs here, and a turn of the server's own models would read two for nothing.
 */
class MeteredTurn implements TurnMeter {
  private readonly client: boolean;
  private readonly callStartedAt: number;
  private firstAt: number | undefined;
  private finishedAt: number | undefined;
  private inputTokens = 0;
  private outputTokens = 0;
  private done = false;

  constructor(
    private readonly meters: Instruments,
    private readonly startedAt: number,
    private readonly requestedModel: string,
    private readonly providerName: string,
    private readonly streaming: boolean,
    private readonly labels: ModelLabels | undefined,
  ) {
    // A turn of this server's own models is no client operation toward an upstream.
    this.client = providerName !== GEN_AI_PROVIDERS.openresponses;
    this.callStartedAt = this.client ? clock.now() : 0;
  }

  firstOutput(): void {
    this.firstAt ??= clock.now();
  }

  finished(input: number, output: number, withFirstOutput = false): void {
    if (this.client) this.finishedAt ??= withFirstOutput && this.firstAt !== undefined ? this.firstAt : clock.now();
    this.inputTokens = input;
    this.outputTokens = output;
  }

  ended(errorType?: string): void {
    if (this.done) return;
    this.done = true;
    const { meters, startedAt, firstAt, finishedAt, providerName, outputTokens } = this;
    const model = this.labels ? this.labels.label(this.requestedModel) : this.requestedModel;
    const endedAt = clock.now();
    const series = turnSeriesOf(meters, providerName, model);
    const failed = errorType === undefined ? series : failedTurnSeriesOf(meters, providerName, model, errorType);
    failed.requestDuration.record((endedAt - startedAt) / 1000);
    // Time to first token and per output token: of successful responses only.
    if (errorType === undefined && firstAt !== undefined) {
      series.timeToFirstToken.record((firstAt - startedAt) / 1000);
      if (outputTokens > 1) series.timePerOutputToken.record((endedAt - firstAt) / 1000 / (outputTokens - 1));
    }
    if (!this.client) return;
    const callStartedAt = this.callStartedAt;
    failed.operationDuration.record(((finishedAt ?? endedAt) - callStartedAt) / 1000);
    if (this.streaming && firstAt !== undefined) series.timeToFirstChunk.record((firstAt - callStartedAt) / 1000);
    if (finishedAt !== undefined) {
      series.inputTokens.record(this.inputTokens);
      series.outputTokens.record(outputTokens);
    }
  }
}
