import type { Registry } from '@openresponses/extensions';
import { createAdmission } from '../admission.js';
import { asResponsesError, ResponsesError } from '../errors.js';
import { resolveLimits, type ServerLimits } from '../limits.js';
import { DETERMINISTIC_MODEL, DeterministicModel } from '../models/deterministic.js';
import type { ModelProvider } from '../models/provider.js';
import { BackgroundResponses } from '../responses/background.js';
import { createTurnRunner, type TurnRunner } from '../responses/runner.js';
import type { IngressProfile } from '../responses/turn/superset.js';
import { createSealer, type EncryptionKey, generateEncryptionKey, lazySealer } from '../responses/sealed.js';
import type { ResponseStore } from '../stores/contract.js';
import { InMemoryResponseStore } from '../stores/memory.js';
import {
  openResponsesSession,
  type ResponsesSession,
  type SessionOptions,
  type SessionSocket,
} from '../websocket/session.js';
import type { ServiceRequest, ServiceResponse } from '../exchange.js';
import { authentication, bearerAuthenticator, constantTimeEqual, unauthorized } from '../handler/authentication.js';
import {
  admission,
  bodyLimit,
  compose,
  corsHeaders,
  corsHeaderValues,
  corsPreflight,
  errorMapping,
  httpMetrics,
  logging,
  turnLogging,
  type AnswerStage,
  type Middleware,
  type RequestLog,
  requestIds,
} from '../handler/middleware.js';
import { toFetchHandler } from './fetch-adapter.js';
import { admittedRunner } from './tenant-turns.js';
import { tenantLimits } from '../handler/tenant-limits.js';
import type { QuotaBackend } from '../quota.js';
import { TenantQuota } from '../tenant-quota.js';
import type { TenantDirectory } from '../tenants.js';
import { instrumentRunner, serverSpans, type TelemetryOptions, turnNotes, websocketTurns } from './telemetry.js';
import { type CorsSetting, originAllowed, originCheck, originRefused } from '../handler/origin.js';
import { type MetricsRoute, ROUTES, type RouteOptions } from '../handler/route-table.js';
import { type GaugeSource, observeGauges } from '../telemetry/gauges.js';
import { createRouter, withoutTrailingSlash } from '../handler/router.js';

/** What `createResponsesService` and `createResponsesHandler` take. */
export interface ResponsesServiceOptions {
  /** Accepted bearer keys; none means the server is open (the Node entry warns at startup). */
  apiKeys?: readonly string[];
  /**
   * The tenant of each API key (key -> tenant name). Stored responses are visible only to the tenant that
   * created them; keys that share a tenant share responses. By default each key is its own tenant.
   */
  tenants?: Readonly<Record<string, string>>;
  /**
   * The tenants file, resolved (`resolveTenants`): its keys are accepted besides `apiKeys`, each tenant gets its
   * limits (requests and tokens per minute, turns in flight, WebSocket connections, daily and monthly budgets)
   * and its models. Keys without a tenant keep the server-wide limits.
   */
  tenantDirectory?: TenantDirectory;
  /**
   * Where tenant limits and usage are counted: default the store's own (`quotaBackend()`, shared by every
   * instance on a Redis store), else this process's memory.
   */
  quota?: QuotaBackend;
  /** `memory`: when the quota backend cannot be reached, count in memory (warned) instead of answering 503. */
  quotaFallback?: 'memory';
  /** How long a turn or connection lease outlives an instance that died, in ms (default 30 s). */
  leaseTtlMs?: number;
  /** The operator's key for `GET /v1/usage` (usage per tenant, model and day); without it the route is not served. */
  adminKey?: string;
  /** Model providers, tried in order by `model`; default: the embedded deterministic model. */
  providers?: ModelProvider[];
  /** The model used when a request names none (default `openresponses-deterministic`). */
  defaultModel?: string;
  /** Where responses are stored (default: an `InMemoryResponseStore`). */
  store?: ResponseStore;
  /** How often a running background response checks the store for a cancel from another instance, in ms (default 250). */
  backgroundPollMs?: number;
  /** Largest request body in bytes (default 16 MiB, above the spec's 10 MiB input strings); the same as `limits.maxBodyBytes`. */
  maxBodyBytes?: number;
  /** Budgets for what clients send and make the server hold (see `ServerLimits`; every one has a safe default). */
  limits?: Partial<ServerLimits>;
  /** Path prefix of the API (default `/v1`). */
  basePath?: string;
  /** Adds CORS headers (`true`: any origin). */
  cors?: CorsSetting;
  /** Validates every outgoing payload with the spec-exact schemas and the stream checker; a violation is a server bug and fails loudly. */
  validateOutgoing?: boolean;
  /**
   * AES-256 keys that encrypt reasoning `encrypted_content` and compaction items: the first seals, all open
   * (keep a rotated-out key listed while its payloads may come back). Default: one generated per process on
   * first use, exposed as `generatedEncryptionKey` (the Node entry prints a warning), so payloads do not
   * survive a restart.
   */
  encryptionKeys?: readonly EncryptionKey[];
  /**
   * `openai`: streams use OpenAI's names for raw-reasoning events (`response.reasoning_text.*`) and leave vendor
   * events out, so that the official `openai` SDK's `responses.stream()` helper works with reasoning on. Not
   * conformant to the spec's event names; off by default.
   */
  compatibility?: 'openai';
  /**
   * Which request shapes `POST /v1/responses` and WebSocket `response.create` read: `openai-superset` (default)
   * also accepts what agents such as the Codex CLI send beyond the spec (namespace and custom tools, hosted tool
   * declarations, `additional_tools` items, custom tool calls; see docs/use-with-codex-and-agents.md), translated
   * to spec shapes before any model sees them; `spec` reads exactly the spec's shapes, for conformance testing.
   */
  ingress?: IngressProfile;
  /** Also serve the legacy `POST /v1/chat/completions` from the Responses pipeline (off by default; the Node entry warns). */
  chatCompletionsEndpoint?: boolean;
  /** Vendor extensions (from `@openresponses/extensions`): requests, responses and streams validate with the extended schemas. */
  registry?: Registry;
  /**
   * Serves the playground and stream inspector page at `/` (from `@openresponses/playground`; default
   * off here, on in the CLI). The page itself needs no key; its API calls use the key it is given.
   */
  playground?: boolean;
  /**
   * Serves `GET /metrics` (off, 404, without it): the Prometheus text exposition `scrape` returns (the Node
   * entry's comes from the OpenTelemetry SDK it registers; the library itself only records through
   * `@opentelemetry/api`). It answers to `key`, a metrics-only key, and to the API keys only when `apiKeys`
   * is true: metrics describe every tenant (model names, token counts), so a tenant's key reads them only
   * when the operator says so (another API key is a 403, no key a 401). A server without API keys and
   * without `key` serves them to anyone, like everything else it serves.
   */
  metrics?: {
    /** The Prometheus text exposition of what was recorded so far. */
    scrape: () => Promise<string>;
    /** A key that may read `/metrics` only. */
    key?: string;
    /** The API keys may read `/metrics` too (default false). */
    apiKeys?: boolean;
  };
  /** Called once per answered HTTP request (method, path, status, duration, request id). */
  onRequest?: (entry: RequestLog) => void;
  /** Extra middleware, run after authentication and before routing, first one first (tests add `injectFaults()`). */
  middleware?: readonly Middleware[];
  /**
   * OpenTelemetry spans are recorded whenever an SDK is registered (the library uses `@opentelemetry/api`
   * alone); this only opts in to recording prompts and completions on them (off by default).
   */
  telemetry?: TelemetryOptions;
}

/** What transports use: HTTP requests in two shapes, and WebSocket sessions. */
export interface ResponsesService {
  /** The fetch-style handler. */
  fetch(request: Request): Promise<Response>;
  /** The same routes on the transport-neutral request shape the Node entry serves from `node:http` directly. */
  handle(request: ServiceRequest): Promise<ServiceResponse>;
  /**
   * Checks a WebSocket upgrade request before the handshake: undefined to accept it, or the error that
   * refuses it (404 off the responses path, 403 from a web origin CORS does not allow, 401 without a valid key,
   * 429 when the key or the server has as many WebSocket connections open as the limits allow).
   */
  checkUpgrade(request: Pick<ServiceRequest, 'path' | 'header'>): Promise<ResponsesError | undefined>;
  /** Runs the Responses WebSocket protocol over an accepted socket (its `OpenResponses-Version` and key read from `request`). */
  openSession(
    socket: SessionSocket,
    request: Pick<ServiceRequest, 'header'>,
    options?: SessionOptions,
  ): ResponsesSession;
  /** True when no API keys are configured. */
  readonly open: boolean;
  /** The limits in force, defaults filled in. */
  readonly limits: ServerLimits;
  /**
   * The key generated because no `encryptionKeys` were configured, if so: made on first use (the first sealed
   * payload, or reading this property), never while constructing the service.
   */
  readonly generatedEncryptionKey?: EncryptionKey;
}

const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'openresponses-version'];

/**
 * Construction does no I/O, starts no timer and draws no random values (a Worker may build the service at module
 * scope, where workerd allows none of them): what needs them is made on first use.
 */
export function createResponsesService(options: ResponsesServiceOptions = {}): ResponsesService {
  const basePath = (options.basePath ?? '/v1').replace(/\/$/, '');
  const generatedEncryptionKey = options.encryptionKeys?.length ? undefined : onFirstUse(generateEncryptionKey);
  const store: ResponseStore = options.store ?? new InMemoryResponseStore();
  const quota = new TenantQuota({
    directory: options.tenantDirectory,
    backend: options.quota ?? store.quotaBackend?.(),
    fallback: options.quotaFallback,
    leaseTtlMs: options.leaseTtlMs,
    usageRoute: options.adminKey !== undefined,
  });
  // Every turn, whatever runs it, is admitted and accounted for its tenant.
  const runner = admittedRunner(
    createRunner(Object.assign({}, options, { store }), generatedEncryptionKey),
    quota,
    options.defaultModel ?? DETERMINISTIC_MODEL,
  );
  const { limits } = runner;
  const background = new BackgroundResponses(runner, store, {
    pollMs: options.backgroundPollMs,
    deadlineMs: limits.maxBackgroundTurnMs,
  });
  const authenticator = bearerAuthenticator(
    options.apiKeys ?? [],
    options.tenants,
    options.tenantDirectory?.keyDigests,
  );
  const routeOptions: RouteOptions = {
    chatCompletionsEndpoint: options.chatCompletionsEndpoint,
    playground: options.playground,
    metrics: options.metrics && metricsRoute(options.metrics, authenticator),
    usage: options.adminKey
      ? {
          adminKey: options.adminKey,
          quota,
          tenants: () => [...(options.tenantDirectory?.tenants.keys() ?? [])],
          prices: options.tenantDirectory?.prices ?? {},
        }
      : undefined,
  };
  const router = createRouter(
    ROUTES,
    { runner, store, limits, providers: runner.providers, background, basePath, options: routeOptions },
    basePath,
    (option) => Boolean(routeOptions[option]),
  );
  // One account of rates, turns in flight and connections for HTTP and WebSocket alike.
  const admitted = createAdmission(limits);
  // Connection-local responses of every WebSocket, under one byte budget (32 a connection at the most).
  const connectionState = new InMemoryResponseStore({
    maxBytes: Math.max(1, limits.maxWebSocketStateBytes),
    maxEntries: Math.max(1, limits.maxWebSocketConnections) * 32,
  });
  const corsValues = options.cors ? corsHeaderValues(options.cors, CORS_ALLOWED_HEADERS) : undefined;
  // Outermost first: every answer (errors included) gets a request id, is logged and carries CORS headers;
  // the stages from `serverSpans` to `errorMapping` run in one async frame.
  const middleware: Array<Middleware | AnswerStage> = [
    serverSpans(),
    httpMetrics(),
    requestIds(),
    ...(options.onRequest ? [logging(options.onRequest)] : []),
    ...(corsValues ? [corsHeaders(corsValues)] : []),
    errorMapping(),
    ...(corsValues ? [corsPreflight(corsValues)] : []),
    originCheck(options.cors),
    authentication(authenticator, router.isPublic),
    admission(admitted, router.takesTurn),
    tenantLimits(quota),
    bodyLimit(limits.maxBodyBytes),
    ...(options.middleware ?? []),
  ];
  const handle = compose(middleware, router.handle);
  const responsesPath = `${basePath}/responses`;

  const service: ResponsesService = {
    fetch: toFetchHandler(handle),
    handle,
    checkUpgrade: async (request) => {
      const path = withoutTrailingSlash(request.path);
      if (path !== responsesPath)
        return new ResponsesError('not_found', 'unknown_path', `No WebSocket route at ${path}.`);
      const origin = request.header('origin');
      if (origin !== null && !originAllowed(origin, request.header('host'), options.cors)) return originRefused(origin);
      const owner = await authenticator.ownerOf(request.header('authorization'));
      if (owner === undefined) return unauthorized();
      try {
        admitted.checkConnection(owner);
        await quota.checkConnection(owner);
      } catch (error) {
        return asResponsesError(error);
      }
      return undefined;
    },
    openSession: (socket, request, sessionOptions) =>
      openResponsesSession(
        socket,
        websocketTurns(
          options.onRequest ? turnLogging(runner, options.onRequest, responsesPath) : runner,
          request.header,
          responsesPath,
        ),
        {
          versionHeader: request.header('openresponses-version'),
          owner: Promise.resolve(authenticator.ownerOf(request.header('authorization'))),
          admission: admitted,
          quota,
          state: connectionState,
        },
        sessionOptions,
      ),
    open: authenticator.open,
    limits,
    get generatedEncryptionKey() {
      return generatedEncryptionKey?.();
    },
  };
  // The gauges read this service's counters for as long as the service lives.
  const gauges: GaugeSource = {
    turnsInFlight: () => admitted.held().turns,
    backgroundTurns: () => background.active,
    webSocketConnections: () => admitted.held().connections,
    stores: () => [...storeUsage('responses', store), ...storeUsage('websocket', connectionState)],
  };
  GAUGES.set(service, gauges);
  observeGauges(gauges);
  return service;
}

/** Keeps each service's gauge source alive exactly as long as the service (the gauges hold it weakly). */
const GAUGES = new WeakMap<ResponsesService, GaugeSource>();

/** A store's own byte and entry counts, when it keeps them (the in-memory store does; Redis does not). */
function storeUsage(name: string, store: ResponseStore): Array<{ name: string; bytes: number; entries: number }> {
  const counted = store as Partial<Pick<InMemoryResponseStore, 'bytes' | 'size'>>;
  return typeof counted.bytes === 'number' && typeof counted.size === 'number'
    ? [{ name, bytes: counted.bytes, entries: counted.size }]
    : [];
}

/** `GET /metrics` over `scrape`, for the metrics-only key (and the API keys when `apiKeys` lets them). */
function metricsRoute(
  options: NonNullable<ResponsesServiceOptions['metrics']>,
  authenticator: ReturnType<typeof bearerAuthenticator>,
): MetricsRoute {
  const key = options.key;
  return {
    scrape: options.scrape,
    authorized: async (header) => {
      const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
      if (key !== undefined && constantTimeEqual(token, key)) return 'allowed';
      // A server without API keys but with a metrics key answers to that key only.
      if (authenticator.open) return key === undefined ? 'allowed' : 'unauthenticated';
      if ((await authenticator.ownerOf(header)) === undefined) return 'unauthenticated';
      return options.apiKeys ? 'allowed' : 'forbidden';
    },
  };
}

/** `make`, called once, on the first call. */
function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * The turn runner a service with these options uses (tests drive it without a transport). Without
 * `encryptionKeys` it seals with `generatedEncryptionKey` (a key, or a function called on first use; default:
 * one generated on first use).
 */
export function createRunner(
  options: ResponsesServiceOptions = {},
  generatedEncryptionKey: EncryptionKey | (() => EncryptionKey) = onFirstUse(generateEncryptionKey),
): TurnRunner {
  const generated =
    typeof generatedEncryptionKey === 'function' ? generatedEncryptionKey : () => generatedEncryptionKey;
  const providers = options.providers ?? [new DeterministicModel()];
  const defaultModel = options.defaultModel ?? DETERMINISTIC_MODEL;
  const runner = createTurnRunner({
    providers,
    defaultModel,
    sealer: options.encryptionKeys?.length
      ? createSealer(options.encryptionKeys)
      : lazySealer(() => createSealer([generated()])),
    // Store calls are child spans of the request's or turn's span.
    store: options.store ?? new InMemoryResponseStore(),
    limits: resolveLimits(Object.assign({ maxBodyBytes: options.maxBodyBytes }, options.limits)),
    registry: options.registry,
    validateOutgoing: options.validateOutgoing,
    compatibility: options.compatibility,
    ingress: options.ingress,
    // Facts (model, usage, failure) for the request log and metrics, noted by the runner as a turn ends.
    notes: turnNotes(providers, options.telemetry),
  });
  // A GenAI span per turn.
  return instrumentRunner(runner, { providers, defaultModel, ...options.telemetry });
}

/** The fetch-style handler: `(request: Request) => Promise<Response>`, mountable in any runtime. */
export function createResponsesHandler(options: ResponsesServiceOptions = {}): (request: Request) => Promise<Response> {
  return createResponsesService(options).fetch;
}
