import { createStreamChecker, encodeEvent, randomId, SSE_DONE, type AnyStreamingEvent } from '@openresponses/events';
import type { CompactResource, ItemField } from '@openresponses/types';
import { LATEST_SPEC_VERSION, SPEC_VERSIONS, validate, versions, type SpecVersion } from '@openresponses/zod';
import type { Registry } from '@openresponses/extensions';
import { invalidRequest, ResponsesError } from '../errors.js';
import { DETERMINISTIC_MODEL, DeterministicModel } from '../models/deterministic.js';
import { countTokens, itemText, type ModelProvider } from '../models/provider.js';
import { acceptClientShapes, historyOf, normalizeInput, type LookupResponse } from '../responses/context.js';
import type { Cancellation } from '../responses/cancellation.js';
import { createSealer, type Sealer } from '../responses/sealed.js';
import { prepareTurn, startTurn, type TurnDependencies, type TurnResult } from '../responses/turn.js';
import { InMemoryResponseStore, type ResponseStore } from '../stores/store.js';
import { toFetchHandler } from './fetch.js';
import {
  constantTimeEqual,
  errorResponse,
  json,
  readBody,
  unauthorized,
  type ServiceRequest,
  type ServiceResponse,
} from './http.js';

export interface ResponsesServiceOptions {
  /** Accepted bearer keys; none means the server is open (the Node entry warns at startup). */
  apiKeys?: readonly string[];
  /** Model providers, tried in order by `model`; default: the embedded deterministic model. */
  providers?: ModelProvider[];
  /** The model used when a request names none (default `openresponses-deterministic`). */
  defaultModel?: string;
  store?: ResponseStore;
  /** Largest request body in bytes (default 16 MiB, above the spec's 10 MiB input strings). */
  maxBodyBytes?: number;
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
  /** Secret that signs reasoning `encrypted_content` and compaction items (default: random per process). */
  secret?: string;
  /** Vendor extensions (from `@openresponses/extensions`): requests, responses and streams validate with the extended schemas. */
  registry?: Registry;
}

interface TurnOptions {
  version: SpecVersion;
  lookupResponse?: LookupResponse;
  onEvent?: (event: AnyStreamingEvent) => void;
  cancellation?: Cancellation;
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
  readonly store: ResponseStore;
  readonly open: boolean;
  versionOf(header: string | null): SpecVersion;
}

export function createResponsesService(options: ResponsesServiceOptions = {}): ResponsesService {
  const store = options.store ?? new InMemoryResponseStore();
  const providers = options.providers ?? [new DeterministicModel()];
  const sealer: Sealer = createSealer(options.secret);
  const base = (options.basePath ?? '/v1').replace(/\/$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const keys = options.apiKeys ?? [];
  const deps: TurnDependencies = {
    providers,
    defaultModel: options.defaultModel ?? DETERMINISTIC_MODEL,
    lookupResponse: (id) => store.get(id),
    lookupItem: (id) => store.getItem(id),
    sealer,
    registry: options.registry,
  };
  const corsHeaders: Record<string, string> = options.cors
    ? {
        'access-control-allow-origin': options.cors === true ? '*' : options.cors.origin,
        'access-control-allow-headers': 'authorization, content-type, openresponses-version, openresponses-test-fail',
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      }
    : {};
  const faults = new Map<string, number>();

  const authorize = (header: string | null) => {
    if (keys.length === 0) return true;
    const token = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
    // Compare against every key so timing does not reveal which one matched.
    return keys.reduce((ok, key) => constantTimeEqual(token, key) || ok, false);
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
    const prepared = await prepareTurn(
      raw,
      turnOptions.version,
      { ...deps, lookupResponse: turnOptions.lookupResponse ?? deps.lookupResponse },
      turnOptions.schema,
    );
    const started = await startTurn(prepared, deps, {
      cancellation: turnOptions.cancellation,
      wholeDeltas: !watched,
    });
    return async (onEvent?: (event: AnyStreamingEvent) => void) => {
      const checker = options.validateOutgoing
        ? (options.registry?.createStreamChecker() ??
          createStreamChecker({ eventSchema: versions[turnOptions.version].exact.StreamingEventSchema }))
        : undefined;
      const result = await started.run((event) => {
        const violations = checker?.push(event).filter((v) => v.severity === 'error') ?? [];
        if (violations.length > 0)
          throw new Error(`Server bug: an outgoing event breaks the stream rules: ${JSON.stringify(violations)}`);
        onEvent?.(event);
      });
      checkOutgoing(turnOptions.version, result.response);
      if (prepared.body.store !== false) await store.put({ response: result.response, input: prepared.input });
      return { response: result.response, error: result.error, input: prepared.input };
    };
  };

  const turn: ResponsesService['turn'] = async (raw, turnOptions) =>
    (await beginTurn(raw, turnOptions, turnOptions.onEvent !== undefined))(turnOptions.onEvent);

  const createResponse = async (request: ServiceRequest, version: SpecVersion): Promise<ServiceResponse> => {
    const body = await readBody(request, maxBodyBytes);
    const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
    const run = await beginTurn(body, { version, cancellation: request.cancellation }, streaming);
    if (!streaming) {
      const result = await run();
      if (result.error) return errorResponse(result.error, corsHeaders);
      return json(200, result.response, corsHeaders);
    }
    const events = {
      pipe: async (write: (chunk: string) => void) => {
        try {
          await run((event) => write(encodeEvent(event)));
        } catch (error) {
          // A failure inside a started stream is a server bug (model failures end in response.failed).
          console.error(error);
          throw error;
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

  const compact = async (request: ServiceRequest, version: SpecVersion): Promise<ServiceResponse> => {
    const raw = await readBody(request, maxBodyBytes);
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
    const history = body.previous_response_id
      ? await historyOf(body.previous_response_id, deps.lookupResponse, sealer)
      : [];
    const { expanded } = await normalizeInput(body.input as never, deps.lookupItem, sealer);
    const window = [...history, ...expanded];
    const kept = window.filter((item) => item.type === 'message' && (item as { role: string }).role === 'user');
    const sealed = window.filter((item) => !kept.includes(item));
    const compaction = {
      type: 'compaction',
      id: randomId('cmp'),
      encrypted_content: await sealer.seal(sealed),
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
    if (!authorize(request.header('authorization'))) throw unauthorized();
    if (options.testHooks) {
      const fault = injectedFault(request, faults);
      if (fault) return fault;
    }
    const version = versionOf(request.header('openresponses-version'));
    if (path === `${base}/responses`) {
      if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
      return createResponse(request, version);
    }
    if (path === `${base}/responses/compact`) {
      if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
      return compact(request, version);
    }
    const match = storedRoute.exec(path);
    if (match) {
      const id = decodeURIComponent(match[1]!);
      const stored = await store.get(id);
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
        await store.delete(id);
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
    store,
    open: keys.length === 0,
    versionOf,
  };
}

/** The fetch-style handler: `(request: Request) => Promise<Response>`, mountable in any runtime. */
export function createResponsesHandler(options: ResponsesServiceOptions = {}): (request: Request) => Promise<Response> {
  return createResponsesService(options).fetch;
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
