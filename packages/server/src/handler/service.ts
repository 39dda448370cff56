import { createStreamChecker, encodeEvent, randomId, SSE_DONE, type AnyStreamingEvent } from '@openresponses/events';
import type { CompactResource, ItemField, ResponseResource } from '@openresponses/types';
import { LATEST_SPEC_VERSION, SPEC_VERSIONS, validate, versions, type SpecVersion } from '@openresponses/zod';
import type { Registry } from '@openresponses/extensions';
import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';
import { checkRequestBudgets, resolveLimits, type ServerLimits } from '../limits.js';
import { DETERMINISTIC_MODEL, DeterministicModel } from '../models/deterministic.js';
import { countTokens, itemText, type ModelProvider } from '../models/provider.js';
import { openAIEventNames } from '../responses/compat.js';
import { acceptClientShapes, historyOf, normalizeInput } from '../responses/context.js';
import type { Cancellation } from '../responses/cancellation.js';
import { createSealer, type EncryptionKey, generateEncryptionKey, type Sealer } from '../responses/sealed.js';
import { prepareTurn, startTurn, type TurnDependencies, type TurnResult } from '../responses/turn.js';
import type { ResponseStore } from '../stores/contract.js';
import { InMemoryResponseStore } from '../stores/memory.js';
import { serveChatCompletions } from './chat-completions.js';
import { toFetchHandler } from './fetch.js';
import { listModels } from './models.js';
import { playgroundAsset } from './playground.js';
import {
  constantTimeEqual,
  errorResponse,
  json,
  readBody,
  unauthorized,
  type Backpressure,
  type ServiceRequest,
  type ServiceResponse,
} from './http.js';

export interface ResponsesServiceOptions {
  /** Accepted bearer keys; none means the server is open (the Node entry warns at startup). */
  apiKeys?: readonly string[];
  /**
   * The tenant of each API key (key -> tenant name). Stored responses are visible only to the tenant that
   * created them; keys that share a tenant share responses. By default each key is its own tenant.
   */
  tenants?: Readonly<Record<string, string>>;
  /** Model providers, tried in order by `model`; default: the embedded deterministic model. */
  providers?: ModelProvider[];
  /** The model used when a request names none (default `openresponses-deterministic`). */
  defaultModel?: string;
  store?: ResponseStore;
  /** Largest request body in bytes (default 16 MiB, above the spec's 10 MiB input strings); the same as `limits.maxBodyBytes`. */
  maxBodyBytes?: number;
  /** Budgets for what clients send and make the server hold (see `ServerLimits`; every one has a safe default). */
  limits?: Partial<ServerLimits>;
  /** Path prefix of the API (default `/v1`). */
  basePath?: string;
  /** Adds CORS headers (`true`: any origin). */
  cors?: boolean | { origin: string };
  /** Validates every outgoing payload with the spec-exact schemas and the stream checker; a violation is a server bug and fails loudly. */
  validateOutgoing?: boolean;
  /**
   * Test hooks for clients' retry tests: a request with `OpenResponses-Test-Fail: <status>;times=<n>;key=<k>`
   * fails with that status the first n times its key is seen. Never enable in production.
   */
  testHooks?: boolean;
  /**
   * AES-256 keys that encrypt reasoning `encrypted_content` and compaction items: the first seals, all open
   * (keep a rotated-out key listed while its payloads may come back). Default: one generated per process,
   * exposed as `generatedEncryptionKey` (the Node entry prints a warning), so payloads do not survive a restart.
   */
  encryptionKeys?: readonly EncryptionKey[];
  /**
   * `openai`: streams use OpenAI's names for raw-reasoning events (`response.reasoning_text.*`) and leave vendor
   * events out, so that the official `openai` SDK's `responses.stream()` helper works with reasoning on. Not
   * conformant to the spec's event names; off by default.
   */
  compatibility?: 'openai';
  /** Also serve the legacy `POST /v1/chat/completions` from the Responses pipeline (off by default; the Node entry warns). */
  chatCompletionsEndpoint?: boolean;
  /** Vendor extensions (from `@openresponses/extensions`): requests, responses and streams validate with the extended schemas. */
  registry?: Registry;
  /**
   * Serves the playground and stream inspector page at `/` (from `@openresponses/playground`; default
   * off here, on in the CLI). The page itself needs no key; its API calls use the key it is given.
   */
  playground?: boolean;
}

interface TurnOptions {
  version: SpecVersion;
  /** The tenant the turn runs for (`ownerOf`): it sees and stores only its own responses. */
  owner: string;
  /** Where this turn's context is read and its response stored (default the service's store; WebSocket sessions layer their cache over it). */
  store?: ResponseStore;
  onEvent?: (event: AnyStreamingEvent) => void;
  cancellation?: Cancellation;
  /** Pauses the turn while the client is behind on reading. */
  backpressure?: Backpressure;
  schema?: 'CreateResponseBodySchema' | 'WebSocketResponseCreateEventSchema';
}

/** The parts of a running server that both the HTTP handler and the WebSocket transport use. */
export interface ResponsesService {
  /** The fetch-style handler. */
  fetch(request: Request): Promise<Response>;
  /** The same routes on the transport-neutral request shape the Node entry serves from `node:http` directly. */
  handle(request: ServiceRequest): Promise<ServiceResponse>;
  /** Runs one `response.create` turn: validation, context, model, events; stores it when `store` allows. */
  turn(raw: unknown, options: TurnOptions): Promise<TurnResult & { input: ItemField[] }>;
  authorize(header: string | null): boolean;
  /** The tenant of an `Authorization` header, or undefined when it carries no accepted key. */
  ownerOf(header: string | null): Promise<string | undefined>;
  readonly store: ResponseStore;
  readonly open: boolean;
  /** The limits in force, defaults filled in. */
  readonly limits: ServerLimits;
  /** The key generated because no `encryptionKeys` were configured, if so. */
  readonly generatedEncryptionKey?: EncryptionKey;
  versionOf(header: string | null): SpecVersion;
}

export function createResponsesService(options: ResponsesServiceOptions = {}): ResponsesService {
  const store = options.store ?? new InMemoryResponseStore();
  const providers = options.providers ?? [new DeterministicModel()];
  const generatedEncryptionKey = options.encryptionKeys?.length ? undefined : generateEncryptionKey();
  const sealer: Sealer = createSealer(
    options.encryptionKeys?.length ? options.encryptionKeys : [generatedEncryptionKey!],
  );
  const base = (options.basePath ?? '/v1').replace(/\/$/, '');
  const limits = resolveLimits(Object.assign({ maxBodyBytes: options.maxBodyBytes }, options.limits));
  const keys = options.apiKeys ?? [];
  const defaultModel = options.defaultModel ?? DETERMINISTIC_MODEL;
  /** What a turn needs, reading only `owner`'s responses. */
  const depsFor = (owner: string, from: ResponseStore = store): TurnDependencies => ({
    providers,
    defaultModel,
    loadChain: (id) => from.getChain(id, owner),
    lookupItem: (id) => from.getItem(id, owner),
    sealer,
    registry: options.registry,
    limits,
  });
  const corsHeaders: Record<string, string> = options.cors
    ? {
        'access-control-allow-origin': options.cors === true ? '*' : options.cors.origin,
        'access-control-allow-headers': 'authorization, content-type, openresponses-version, openresponses-test-fail',
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      }
    : {};
  const faults = new Map<string, number>();

  /** The accepted key an `Authorization` header carries ('' when the server is open), or undefined. */
  const matchKey = (header: string | null): string | undefined => {
    if (keys.length === 0) return '';
    const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
    // Compare against every key so timing does not reveal which one matched.
    let matched: string | undefined;
    for (const key of keys) if (constantTimeEqual(token, key)) matched = key;
    return matched;
  };
  const authorize = (header: string | null) => matchKey(header) !== undefined;
  // Tenants are named by configuration or by a digest of the key: stores never hold the keys themselves.
  const tenants = Promise.all(
    keys.map(async (key) => [key, options.tenants?.[key] ?? `key_${await digestHex(key)}`] as const),
  ).then((pairs) => new Map<string, string>(pairs));
  const ownerOf = async (header: string | null) => {
    const key = matchKey(header);
    if (key === undefined) return undefined;
    return key === '' ? 'open' : (await tenants).get(key);
  };

  const versionOf = (header: string | null): SpecVersion => {
    if (!header) return LATEST_SPEC_VERSION;
    if ((SPEC_VERSIONS as readonly string[]).includes(header.trim())) return header.trim() as SpecVersion;
    throw invalidRequest(
      'unsupported_version',
      `OpenResponses-Version '${header}' is not supported; this server speaks ${SPEC_VERSIONS.join(', ')}.`,
      null,
    );
  };

  const checkOutgoing = (version: SpecVersion, response: unknown) => {
    if (!options.validateOutgoing) return;
    const result = validate(
      (options.registry?.schemas.ResponseResource ?? versions[version].exact.ResponseResourceSchema) as Parameters<
        typeof validate
      >[0],
      response,
    );
    if (!result.success)
      throw new Error(
        `Server bug: an outgoing response breaks the ${version} schema: ${JSON.stringify(result.issues)}`,
      );
  };

  /**
   * Phase one of a turn: validation, context, and the model's first part (errors here become plain
   * JSON errors); phase two streams the rest. `watched`: a client sees the deltas as they come.
   */
  const beginTurn = async (raw: unknown, turnOptions: TurnOptions, watched: boolean) => {
    const target = turnOptions.store ?? store;
    const deps = depsFor(turnOptions.owner, target);
    const prepared = await prepareTurn(raw, turnOptions.version, deps, turnOptions.schema);
    const stored = prepared.body.store !== false;
    const started = await startTurn(prepared, deps, {
      cancellation: turnOptions.cancellation,
      wholeDeltas: !watched,
    });
    return async (onEvent?: (event: AnyStreamingEvent) => void, backpressure = turnOptions.backpressure) => {
      const checker = options.validateOutgoing
        ? (options.registry?.createStreamChecker() ??
          createStreamChecker({ eventSchema: versions[turnOptions.version].exact.StreamingEventSchema }))
        : undefined;
      const rename = options.compatibility === 'openai' ? openAIEventNames() : undefined;
      const emit = (event: AnyStreamingEvent) => {
        const violations = checker?.push(event).filter((v) => v.severity === 'error') ?? [];
        if (violations.length > 0)
          throw new Error(`Server bug: an outgoing event breaks the stream rules: ${JSON.stringify(violations)}`);
        if (!onEvent) return;
        const outgoing = rename ? rename(event) : event;
        if (outgoing) onEvent(outgoing);
      };
      // A stored turn's last event waits until the response is stored: a client never sees a response end
      // that a later GET or continuation cannot find.
      let last: AnyStreamingEvent | undefined;
      const result = await started.run(
        stored
          ? (event) => {
              if (TERMINAL_EVENTS.has(event.type)) last = event;
              else emit(event);
            }
          : emit,
        backpressure,
      );
      checkOutgoing(turnOptions.version, result.response);
      if (stored) {
        try {
          await target.put({ response: result.response, input: prepared.input }, turnOptions.owner);
        } catch (error) {
          const failure = asResponsesError(error);
          if (last) for (const event of failedInstead(last, failure)) emit(event);
          throw failure;
        }
        if (last) emit(last);
      }
      return { response: result.response, error: result.error, input: prepared.input };
    };
  };

  const turn: ResponsesService['turn'] = async (raw, turnOptions) =>
    (await beginTurn(raw, turnOptions, turnOptions.onEvent !== undefined))(turnOptions.onEvent);

  const createResponse = async (
    request: ServiceRequest,
    version: SpecVersion,
    owner: string,
  ): Promise<ServiceResponse> => {
    const body = await readBody(request, limits);
    const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
    const run = await beginTurn(body, { version, owner, cancellation: request.cancellation }, streaming);
    if (!streaming) {
      const result = await run();
      if (result.error) return errorResponse(result.error, corsHeaders);
      return json(200, result.response, corsHeaders);
    }
    const events = {
      pipe: async (write: (chunk: string) => void, backpressure?: Backpressure) => {
        try {
          await run((event) => write(encodeEvent(event)), backpressure);
        } catch (error) {
          // The store failing has already been told to the client (error, response.failed); anything else
          // inside a started stream is a server bug (model failures end in response.failed).
          if (!(error instanceof ResponsesError)) {
            console.error(error);
            throw error;
          }
        }
        write(SSE_DONE);
      },
    };
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...corsHeaders },
      body: events,
    };
  };

  const compact = async (request: ServiceRequest, version: SpecVersion, owner: string): Promise<ServiceResponse> => {
    const raw = await readBody(request, limits);
    checkRequestBudgets(raw, limits);
    const schema = (versions[version].exact as unknown as Record<string, Parameters<typeof validate>[0] | undefined>)
      .CompactResponseMethodPublicBodySchema;
    if (!schema)
      throw new ResponsesError(
        'not_found',
        'unsupported_endpoint',
        `POST ${base}/responses/compact is not part of spec ${version}.`,
      );
    const result = validate(schema, acceptClientShapes(raw));
    if (!result.success) {
      const issue = result.issues[0]!;
      throw invalidRequest(
        issue.path === 'model' ? 'missing_required_parameter' : 'invalid_value',
        `Invalid request: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`,
        issue.path || null,
      );
    }
    const body = result.data as {
      model: string;
      input?: unknown;
      previous_response_id?: string | null;
      instructions?: string | null;
    };
    if (!providers.some((p) => p.supports(body.model)))
      throw invalidRequest('model_not_found', `The model '${body.model}' does not exist on this server.`, 'model');
    const deps = depsFor(owner);
    const history = body.previous_response_id ? await historyOf(body.previous_response_id, deps.loadChain, sealer) : [];
    const { expanded } = await normalizeInput(body.input as never, deps.lookupItem, sealer);
    const window = history.concat(expanded);
    // One pass into both lists (a `kept.includes` per item was quadratic).
    const kept: ItemField[] = [];
    const sealed: ItemField[] = [];
    for (const item of window)
      (item.type === 'message' && (item as { role: string }).role === 'user' ? kept : sealed).push(item);
    const compaction = {
      type: 'compaction',
      id: randomId('cmp'),
      status: 'completed',
      encrypted_content: await sealer.seal(sealed, 'compaction'),
    } as ItemField;
    const inputTokens = window.reduce((n, item) => n + countTokens(itemText(item)), 0);
    const outputTokens = kept.reduce((n, item) => n + countTokens(itemText(item)), 0) + 1;
    const resource: CompactResource = {
      id: randomId('resp'),
      object: 'response.compaction',
      output: [...kept, compaction],
      created_at: Math.floor(Date.now() / 1000),
      usage: {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    };
    return json(200, resource, corsHeaders);
  };

  const storedRoute = new RegExp(`^${base}/responses/([^/]+)(/input_items)?$`);
  const route = async (request: ServiceRequest): Promise<ServiceResponse> => {
    const path = request.path.replace(/\/+$/, '') || '/';
    if (path === '/healthz' && request.method === 'GET') return json(200, { status: 'ok' }, corsHeaders);
    if (request.method === 'OPTIONS' && options.cors) return { status: 204, headers: corsHeaders, body: null };
    if (options.playground && request.method === 'GET') {
      const asset = await playgroundAsset(path, base);
      if (asset) return asset;
    }
    const owner = await ownerOf(request.header('authorization'));
    if (owner === undefined) throw unauthorized();
    if (options.testHooks) {
      const fault = injectedFault(request, faults);
      if (fault) return fault;
    }
    const version = versionOf(request.header('openresponses-version'));
    if (path === `${base}/models`) {
      if (request.method !== 'GET') throw methodNotAllowed(request.method, path);
      return json(200, await listModels(providers), corsHeaders);
    }
    if (path === `${base}/chat/completions` && options.chatCompletionsEndpoint) {
      if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
      return serveChatCompletions(
        await readBody(request, limits),
        (body, watched) => beginTurn(body, { version, owner, cancellation: request.cancellation }, watched),
        corsHeaders,
      );
    }
    if (path === `${base}/responses`) {
      if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
      return createResponse(request, version, owner);
    }
    if (path === `${base}/responses/compact`) {
      if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
      return compact(request, version, owner);
    }
    const match = storedRoute.exec(path);
    if (match) {
      const id = decodePathSegment(match[1]!);
      const stored = await store.get(id, owner);
      if (!stored)
        throw new ResponsesError(
          'not_found',
          'response_not_found',
          `Response with id '${id}' not found.`,
          'response_id',
        );
      if (match[2]) {
        if (request.method !== 'GET') throw methodNotAllowed(request.method, path);
        const data = stored.input;
        return json(
          200,
          {
            object: 'list',
            data,
            first_id: (data[0] as { id?: string } | undefined)?.id ?? null,
            last_id: (data.at(-1) as { id?: string } | undefined)?.id ?? null,
            has_more: false,
          },
          corsHeaders,
        );
      }
      if (request.method === 'GET') return json(200, stored.response, corsHeaders);
      if (request.method === 'DELETE') {
        // Gone meanwhile (another request deleted it, or it expired): as if it had never been there.
        if (!(await store.delete(id, owner)))
          throw new ResponsesError(
            'not_found',
            'response_not_found',
            `Response with id '${id}' not found.`,
            'response_id',
          );
        return json(200, { id, object: 'response.deleted', deleted: true }, corsHeaders);
      }
      throw methodNotAllowed(request.method, path);
    }
    throw new ResponsesError('not_found', 'unknown_path', `No route for ${request.method} ${path}.`);
  };

  const handle = async (request: ServiceRequest): Promise<ServiceResponse> => {
    try {
      return await route(request);
    } catch (error) {
      if (!(error instanceof ResponsesError)) console.error(error);
      return errorResponse(error, corsHeaders);
    }
  };

  return {
    fetch: toFetchHandler(handle),
    handle,
    turn,
    authorize,
    ownerOf,
    store,
    open: keys.length === 0,
    limits,
    generatedEncryptionKey,
    versionOf,
  };
}

/** The fetch-style handler: `(request: Request) => Promise<Response>`, mountable in any runtime. */
export function createResponsesHandler(options: ResponsesServiceOptions = {}): (request: Request) => Promise<Response> {
  return createResponsesService(options).fetch;
}

const TERMINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The events that end a stream whose response could not be stored, in place of its last event. */
function failedInstead(last: AnyStreamingEvent, failure: ResponsesError): AnyStreamingEvent[] {
  const { sequence_number, response } = last as unknown as { sequence_number: number; response: ResponseResource };
  const error = { type: failure.type, code: failure.code, message: failure.message, param: failure.param };
  return [
    { type: 'error', sequence_number, error } as unknown as AnyStreamingEvent,
    {
      type: 'response.failed',
      sequence_number: sequence_number + 1,
      response: Object.assign({}, response, {
        status: 'failed',
        completed_at: null,
        incomplete_details: null,
        error: { code: failure.code, message: failure.message },
      }),
    } as unknown as AnyStreamingEvent,
  ];
}

/** Hex SHA-256 of a text, first 32 digits (web crypto, so the service runs in any runtime). */
async function digestHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest).subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A percent-decoded path segment; a malformed escape (`%`, `%zz`) is the client's mistake, not a URIError. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (error) {
    throw invalidRequest('invalid_path', `The path segment '${segment}' is not valid percent-encoding.`, null, 400, {
      cause: error,
    });
  }
}

function methodNotAllowed(method: string, path: string): ResponsesError {
  return invalidRequest('method_not_allowed', `${method} is not supported on ${path}.`, null, 405);
}

function injectedFault(request: ServiceRequest, faults: Map<string, number>): ServiceResponse | undefined {
  const header = request.header('openresponses-test-fail');
  if (!header) return undefined;
  const [statusText, ...params] = header.split(';').map((s) => s.trim());
  const settings = Object.fromEntries(params.map((p) => p.split('=') as [string, string]));
  const key = settings.key ?? header;
  const seen = faults.get(key) ?? 0;
  if (seen >= Number(settings.times ?? 1)) return undefined;
  faults.set(key, seen + 1);
  const status = Number(statusText);
  const type = status === 429 ? 'too_many_requests' : status >= 500 ? 'server_error' : 'invalid_request';
  const headers: Record<string, string> = settings['retry-after'] ? { 'retry-after': settings['retry-after'] } : {};
  return json(
    status,
    {
      error: {
        type,
        code: 'injected_fault',
        param: null,
        message: `Injected test fault ${seen + 1} of ${settings.times ?? 1}.`,
      },
    },
    headers,
  );
}
