// The server's metrics, in OpenTelemetry's semantic conventions (GenAI server and client metrics, HTTP server
// duration) plus the operator's own gauges and counters. Only `@opentelemetry/api`: the instruments come from
// the global MeterProvider, a no-op until an SDK is registered (the Node CLI registers one with --metrics or
// the OTLP environment). While none is, every function here returns after one lookup and records nothing.
import { type Attributes, createNoopMeter, type Meter, metrics, type ObservableResult } from '@opentelemetry/api';
import { type Aggregation, ownRecording } from './aggregation.js';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_PROVIDERS,
  GEN_AI_TOKEN_TYPES,
  AttributeSets,
  attributeSet,
  httpMethodOf,
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
import type { ModelLabels } from './model-labels.js';
import { apiRegistry } from './span-scope.js';
import { clock } from './clock.js';

/** `current.registered` before the API was first asked: no registry value is this one. */
const NOT_ASKED: unique symbol = Symbol('not asked');

/** Why a request or connection was refused with a 429 (`rate_limit_exceeded`, `server_busy`, …). */
export const REJECTION_REASON = 'openresponses.rejection.reason';
/** Which store a store gauge describes: `responses` (the response store) or `websocket` (connection-local state). */
export const STORE_NAME = 'openresponses.store.name';

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
}
/** A monotonic counter, of the SDK or of the own aggregation. */
export interface Counter {
  add(value: number, attributes: Attributes): void;
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
}

/** What the gauges read, from each live service in the process (summed). */
export interface GaugeSource {
  /** Turns running now (HTTP and WebSocket; background turns count in `backgroundTurns`). */
  turnsInFlight(): number;
  backgroundTurns(): number;
  webSocketConnections(): number;
  /** Bytes and entries of each store that counts them (by store name). */
  stores(): ReadonlyArray<{ name: string; bytes: number; entries: number }>;
}

/** `registered`: what the API's registry held when the API was last asked (see `instruments`). */
let current: { registered: unknown; provider: unknown; own: Aggregation | undefined; instruments?: Instruments } = {
  registered: NOT_ASKED,
  provider: undefined,
  own: undefined,
};
/** Weakly held: a service nobody uses any more leaves the gauges when it is collected. */
const sources = new Set<WeakRef<GaugeSource>>();

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
  if (provider !== current.provider || own !== current.own) {
    const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    // The API's no-op provider hands out its one no-op meter.
    current = {
      registered,
      provider,
      own,
      instruments: meter === createNoopMeter() ? undefined : create(meter, own),
    };
  } else current.registered = registered;
  return current.instruments;
}

/** Adds a service's counters to the gauges; returns what removes them. */
export function observeGauges(source: GaugeSource): () => void {
  const ref = new WeakRef(source);
  sources.add(ref);
  return () => sources.delete(ref);
}

function create(meter: Meter, aggregation: Aggregation | undefined): Instruments {
  const histogram = (name: string, unit: string, description: string, buckets: readonly number[]): Histogram =>
    aggregation
      ? aggregation.histogram(name, unit, description, buckets)
      : meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: [...buckets] } });
  const counter = (name: string, unit: string, description: string): Counter =>
    aggregation ? aggregation.counter(name, unit, description) : meter.createCounter(name, { unit, description });
  const gauge = (name: string, unit: string, description: string, read: (result: ObservableResult) => void) =>
    meter.createObservableUpDownCounter(name, { unit, description }).addCallback(read);
  gauge('openresponses.turns.active', '{turn}', 'Turns running now (HTTP and WebSocket).', (result) =>
    result.observe(sum((source) => source.turnsInFlight())),
  );
  gauge('openresponses.background.active', '{turn}', 'Background turns running in this process.', (result) =>
    result.observe(sum((source) => source.backgroundTurns())),
  );
  gauge('openresponses.websocket.connections', '{connection}', 'Open WebSocket connections.', (result) =>
    result.observe(sum((source) => source.webSocketConnections())),
  );
  const stores = (read: (store: { bytes: number; entries: number }) => number) => (result: ObservableResult) => {
    const totals = new Map<string, number>();
    for (const source of live())
      for (const store of source.stores()) totals.set(store.name, (totals.get(store.name) ?? 0) + read(store));
    for (const [name, value] of totals) result.observe(value, { [STORE_NAME]: name });
  };
  gauge(
    'openresponses.store.size',
    'By',
    'Bytes the in-memory stores hold (their own count).',
    stores((s) => s.bytes),
  );
  gauge(
    'openresponses.store.entries',
    '{response}',
    'Responses the in-memory stores hold.',
    stores((s) => s.entries),
  );
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
  };
}

function* live(): Generator<GaugeSource> {
  for (const ref of sources) {
    const source = ref.deref();
    if (source) yield source;
    else sources.delete(ref);
  }
}

function sum(read: (source: GaugeSource) => number): number {
  let total = 0;
  for (const source of live()) total += read(source);
  return total;
}

/** Counts a 429 refusal (`reason`: the error code, such as `rate_limit_exceeded` or `server_busy`). */
export function countRejection(reason: string): void {
  instruments()?.rejections.add(
    1,
    attributeSet(`rejection\0${reason}`, () => ({ [REJECTION_REASON]: reason })),
  );
}

/**
 * The attributes of one answered request's `http.server.request.duration` and a turn's overhead (method, status,
 * route template; `route` absent for unknown paths), made once per combination.
 */
export const httpRequestAttributes = (method: string, route: string | undefined, status: number): Attributes => {
  const known = httpMethodOf(method);
  return httpSets.get(known, route, status, undefined, () => {
    const set: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: known, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status };
    if (route !== undefined) set[ATTR_HTTP_ROUTE] = route;
    if (status >= 500) set[ATTR_ERROR_TYPE] = String(status);
    return set;
  });
};
const httpSets = new AttributeSets();

/** What a turn tells its meter; made only while metrics are on. */
export interface TurnMeter {
  /** The model's first output (a delta or a whole item) arrived. */
  firstOutput(): void;
  /** The model's stream finished, with the tokens it reports. */
  finished(inputTokens: number, outputTokens: number): void;
  /** The turn ended: `errorType` when it failed (the error's code). */
  ended(errorType?: string): void;
}

/** The attributes of a failed turn's GenAI metrics (`error.type`: its error code). */
const failedSets = new AttributeSets();
const failedAttributes = (provider: string, model: string, errorType: string) =>
  failedSets.get(provider, model, errorType, undefined, () => ({
    ...turnSetsOf(provider, model).turn,
    [ATTR_ERROR_TYPE]: reportedName(errorType),
  }));

/**
 * The attribute sets of a turn's GenAI metrics by provider and model, made together at the first such turn: a turn
 * finds all of them with one lookup (its token usage's two sets, as separate lookups, missed the last-asked cache).
 */
interface TurnSets {
  /** The turn's and its upstream call's durations and times. */
  readonly turn: Attributes;
  /** `gen_ai.client.token.usage` of input tokens, and of output tokens. */
  readonly input: Attributes;
  readonly output: Attributes;
}
const turnSets = new AttributeSets<TurnSets>();
const turnSetsOf = (provider: string, model: string): TurnSets =>
  turnSets.get(provider, model, undefined, undefined, () => {
    const turn: Attributes = Object.freeze({
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: reportedName(model),
    });
    const typed = (type: string) => Object.freeze({ ...turn, [ATTR_GEN_AI_TOKEN_TYPE]: type });
    return { turn, input: typed(GEN_AI_TOKEN_TYPES.input), output: typed(GEN_AI_TOKEN_TYPES.output) };
  });

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

  finished(input: number, output: number): void {
    if (this.client) this.finishedAt ??= clock.now();
    this.inputTokens = input;
    this.outputTokens = output;
  }

  ended(errorType?: string): void {
    if (this.done) return;
    this.done = true;
    const { meters, startedAt, firstAt, finishedAt, providerName, outputTokens } = this;
    const model = this.labels ? this.labels.label(this.requestedModel) : this.requestedModel;
    const endedAt = clock.now();
    const sets = turnSetsOf(providerName, model);
    const attributes = sets.turn;
    const failed = errorType === undefined ? attributes : failedAttributes(providerName, model, errorType);
    meters.serverRequestDuration.record((endedAt - startedAt) / 1000, failed);
    // Time to first token and per output token: of successful responses only.
    if (errorType === undefined && firstAt !== undefined) {
      meters.serverTimeToFirstToken.record((firstAt - startedAt) / 1000, attributes);
      if (outputTokens > 1)
        meters.serverTimePerOutputToken.record((endedAt - firstAt) / 1000 / (outputTokens - 1), attributes);
    }
    if (!this.client) return;
    const callStartedAt = this.callStartedAt;
    meters.clientOperationDuration.record(((finishedAt ?? endedAt) - callStartedAt) / 1000, failed);
    if (this.streaming && firstAt !== undefined)
      meters.clientTimeToFirstChunk.record((firstAt - callStartedAt) / 1000, attributes);
    if (finishedAt !== undefined) {
      meters.clientTokenUsage.record(this.inputTokens, sets.input);
      meters.clientTokenUsage.record(outputTokens, sets.output);
    }
  }
}
