import { encodeEvent, SSE_DONE } from '@openresponses/events';
import { LATEST_SPEC_VERSION, type SpecVersion } from '@openresponses/zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { compactWindow } from '../responses/compact.js';
import type { BackgroundResponses } from '../responses/background.js';
import type { TurnRunner } from '../responses/runner.js';
import type { ResponseStore } from '../stores/contract.js';
import type { ServerLimits } from '../limits.js';
import type { ModelProvider } from '../models/provider.js';
import { serveChatCompletions } from './chat-completions.js';
import { listModels } from './models.js';
import { playgroundAsset } from './playground.js';
import {
  type Backpressure,
  json,
  negotiateVersion,
  readBody,
  type ServiceRequest,
  type ServiceResponse,
} from './http.js';
import type { ServiceHandler } from './middleware.js';

/** What route handlers work with; made once per service. */
export interface RouteContext {
  runner: TurnRunner;
  store: ResponseStore;
  limits: ServerLimits;
  providers: readonly ModelProvider[];
  background: BackgroundResponses;
  /** Where the API lives (`/v1`). */
  basePath: string;
  /** Routes with an `option` are served only when it is on. */
  options: RouteOptions;
}

/** Switches for optional routes. */
export interface RouteOptions {
  /** The legacy `POST /v1/chat/completions`, served from the Responses pipeline. */
  chatCompletionsEndpoint?: boolean;
  /** The playground page at `/` and its script. */
  playground?: boolean;
}

/** Answers one route. `version` is the negotiated spec version; `params` are the path's `:name` segments, decoded, in order. */
export type RouteHandler = (
  request: ServiceRequest,
  context: RouteContext,
  version: SpecVersion,
  params: readonly string[],
) => Promise<ServiceResponse>;

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the base path (`/v1`) unless `root`; a `:name` segment matches one path segment. */
  path: string;
  handler: RouteHandler;
  /** Outside the base path. */
  root?: boolean;
  /** Served without authentication or version negotiation. */
  public?: boolean;
  /** Served only when this option is on. */
  option?: keyof RouteOptions;
}

/** The routes, one line each. A route is a handler below and a line here. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/healthz', handler: health, root: true, public: true },
  { method: 'POST', path: '/responses', handler: createResponse },
  { method: 'POST', path: '/responses/compact', handler: compact },
  { method: 'GET', path: '/responses/:id', handler: getResponse },
  { method: 'DELETE', path: '/responses/:id', handler: deleteResponse },
  { method: 'POST', path: '/responses/:id/cancel', handler: cancelResponse },
  { method: 'GET', path: '/responses/:id/input_items', handler: listInputItems },
  { method: 'GET', path: '/models', handler: models },
  { method: 'POST', path: '/chat/completions', handler: chatCompletions, option: 'chatCompletionsEndpoint' },
  // The page needs no key (its API calls carry the key it is given).
  { method: 'GET', path: '/', handler: playground, root: true, public: true, option: 'playground' },
  { method: 'GET', path: '/playground.js', handler: playground, root: true, public: true, option: 'playground' },
];

async function playground(request: ServiceRequest, context: RouteContext): Promise<ServiceResponse> {
  return playgroundAsset(withoutTrailingSlash(request.path), context.basePath);
}

async function health(): Promise<ServiceResponse> {
  return json(200, { status: 'ok' });
}

async function createResponse(request: ServiceRequest, context: RouteContext, version: SpecVersion) {
  const body = await readBody(request, context.limits);
  const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
  if (typeof body === 'object' && body !== null && (body as { background?: unknown }).background === true)
    return context.background.create(request, body as Record<string, unknown>, version, ownerOf(request), streaming);
  const run = await context.runner.begin(
    body,
    { version, owner: ownerOf(request), cancellation: request.cancellation },
    streaming,
  );
  if (!streaming) {
    const result = await run();
    if (result.error) throw result.error;
    return json(200, result.response);
  }
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    body: {
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
    },
  } satisfies ServiceResponse;
}

async function compact(request: ServiceRequest, context: RouteContext, version: SpecVersion) {
  const raw = await readBody(request, context.limits);
  return json(200, await compactWindow(raw, version, context.runner.depsFor(ownerOf(request)), context.limits));
}

/** The tenant the authentication middleware found ('open' on a server without keys). */
const ownerOf = (request: ServiceRequest) => request.owner ?? 'open';

const responseNotFound = (id: string) =>
  new ResponsesError('not_found', 'response_not_found', `Response with id '${id}' not found.`, 'response_id');

async function models(_request: ServiceRequest, context: RouteContext) {
  return json(200, await listModels(context.providers));
}

async function chatCompletions(request: ServiceRequest, context: RouteContext, version: SpecVersion) {
  const owner = ownerOf(request);
  return serveChatCompletions(
    await readBody(request, context.limits),
    (body, watched) => context.runner.begin(body, { version, owner, cancellation: request.cancellation }, watched),
    {},
  );
}

async function stored(request: ServiceRequest, context: RouteContext, id: string) {
  const found = await context.store.get(id, ownerOf(request));
  if (!found) throw responseNotFound(id);
  return found;
}

async function getResponse(
  request: ServiceRequest,
  context: RouteContext,
  _version: SpecVersion,
  [id]: readonly string[],
) {
  const found = await stored(request, context, id!);
  if (/(^|&)stream=(true|1)(&|$)/.test(request.query ?? ''))
    throw invalidRequest(
      'unsupported_parameter',
      'Resuming a response stream (GET with stream=true, starting_after) is not supported by this server; poll GET /v1/responses/{id} until its status is final.',
      'stream',
    );
  return json(200, found.response);
}

async function cancelResponse(
  request: ServiceRequest,
  context: RouteContext,
  _version: SpecVersion,
  [id]: readonly string[],
) {
  if (!(await stored(request, context, id!)).response.background)
    throw invalidRequest(
      'invalid_value',
      `Only background responses can be cancelled; '${id}' was not created with background: true.`,
      'response_id',
    );
  const after = await context.background.cancel(id!, ownerOf(request));
  if (!after) throw responseNotFound(id!);
  return json(200, after);
}

async function deleteResponse(
  request: ServiceRequest,
  context: RouteContext,
  _version: SpecVersion,
  [id]: readonly string[],
) {
  // Gone meanwhile (another request deleted it, or it expired): as if it had never been there.
  if (!(await context.store.delete(id!, ownerOf(request)))) throw responseNotFound(id!);
  return json(200, { id, object: 'response.deleted', deleted: true });
}

async function listInputItems(
  request: ServiceRequest,
  context: RouteContext,
  _version: SpecVersion,
  [id]: readonly string[],
) {
  const { limit, order, after } = pageOf(request.query);
  const items = (await stored(request, context, id!)).input;
  const ordered = order === 'asc' ? items : items.toReversed();
  let start = 0;
  if (after !== null) {
    start = ordered.findIndex((item) => (item as { id?: string }).id === after) + 1;
    if (start === 0)
      throw invalidRequest('invalid_value', `after: no input item '${after}' in response '${id}'.`, 'after');
  }
  const data = ordered.slice(start, start + limit);
  return json(200, {
    object: 'list',
    data,
    first_id: (data[0] as { id?: string } | undefined)?.id ?? null,
    last_id: (data.at(-1) as { id?: string } | undefined)?.id ?? null,
    has_more: start + limit < ordered.length,
  });
}

/**
 * `input_items` paging as OpenAI's API has it: `limit` 1-100 (default 20), `after` an item id, and
 * `order` (default `asc`, the order the items were sent in; OpenAI's default is `desc`).
 */
function pageOf(query = ''): { limit: number; order: 'asc' | 'desc'; after: string | null } {
  const params = new URLSearchParams(query);
  const limitText = params.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalidRequest('invalid_value', `limit must be an integer from 1 to 100, got '${limitText}'.`, 'limit');
  const order = params.get('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc')
    throw invalidRequest('invalid_value', `order must be 'asc' or 'desc', got '${order}'.`, 'order');
  return { limit, order, after: params.get('after') };
}

export interface Router {
  handle: ServiceHandler;
  /** Whether a request is for a public route (no authentication). */
  isPublic(request: ServiceRequest): boolean;
}

type Methods = Map<string, Route>;
const NO_PARAMS: readonly string[] = [];

/**
 * Matches literal paths with one map lookup (the hot path) and `:name` paths by pattern; a literal path
 * wins over a pattern (`/responses/compact` is not a response id). A known path with another method is 405.
 */
export function createRouter(routes: readonly Route[], context: RouteContext, basePath: string): Router {
  const literal = new Map<string, Methods>();
  const patterns: Array<{ pattern: RegExp; methods: Methods }> = [];
  const patternMethods = new Map<string, Methods>();
  for (const route of routes) {
    if (route.option && !context.options[route.option]) continue;
    const path = route.root ? route.path : `${basePath}${route.path}`;
    if (!path.includes('/:')) {
      const methods = literal.get(path) ?? new Map();
      literal.set(path, methods.set(route.method, route));
      continue;
    }
    const source = `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[A-Za-z_]+/g, '/([^/]+)')}$`;
    let methods = patternMethods.get(source);
    if (!methods) {
      patternMethods.set(source, (methods = new Map()));
      patterns.push({ pattern: new RegExp(source), methods });
    }
    methods.set(route.method, route);
  }

  const find = (path: string): { methods: Methods; params: readonly string[] } | undefined => {
    const methods = literal.get(path);
    if (methods) return { methods, params: NO_PARAMS };
    for (const { pattern, methods } of patterns) {
      const match = pattern.exec(path);
      if (match) return { methods, params: match.slice(1).map(decodeSegment) };
    }
    return undefined;
  };

  return {
    handle: (request) => {
      const path = withoutTrailingSlash(request.path);
      const literalMethods = literal.get(path);
      const found = literalMethods ? undefined : find(path);
      const methods = literalMethods ?? found?.methods;
      if (!methods) throw new ResponsesError('not_found', 'unknown_path', `No route for ${request.method} ${path}.`);
      // HEAD is GET without the body, wherever GET is served.
      const head = request.method === 'HEAD';
      const route = methods.get(head ? 'GET' : request.method);
      if (!route)
        throw new ResponsesError(
          'invalid_request',
          'method_not_allowed',
          `${request.method} is not supported on ${path}.`,
          null,
          405,
          { headers: { allow: allowed(methods) } },
        );
      const version = route.public ? LATEST_SPEC_VERSION : negotiateVersion(request.header('openresponses-version'));
      const answer = route.handler(request, context, version, found?.params ?? NO_PARAMS);
      return head ? answer.then((response) => Object.assign({}, response, { body: null })) : answer;
    },
    isPublic: (request) =>
      literal.get(withoutTrailingSlash(request.path))?.get(request.method === 'HEAD' ? 'GET' : request.method)
        ?.public === true,
  };
}

/** The `Allow` header of a path: its methods, and HEAD where GET is served. */
function allowed(methods: Methods): string {
  const names = [...methods.keys()];
  if (methods.has('GET')) names.push('HEAD');
  return names.join(', ');
}

/** `/v1/responses/` is `/v1/responses`; returns `path` itself (no copy) when it has no trailing slash. */
export function withoutTrailingSlash(path: string): string {
  if (path.length <= 1 || path.charCodeAt(path.length - 1) !== 47) return path;
  return path.replace(/\/+$/, '') || '/';
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch (error) {
    // A malformed escape (`%`, `%zz`) is the client's mistake, not a URIError.
    throw invalidRequest('invalid_path', `The path segment '${segment}' is not valid percent-encoding.`, null, 400, {
      cause: error,
    });
  }
}
