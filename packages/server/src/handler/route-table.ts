import type { SpecVersion } from '@openresponses/zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { compactWindow } from '../responses/compact.js';
import type { BackgroundResponses } from '../responses/background.js';
import type { TurnRunner } from '../responses/runner.js';
import type { ResponseStore } from '../stores/contract.js';
import { storeSpans } from '../stores/store-spans.js';
import type { ServerLimits } from '../limits.js';
import type { ModelProvider } from '../models/provider.js';
import { serveChatCompletions } from './chat-completions.js';
import { listModels } from './models.js';
import { playgroundAsset } from './playground.js';
import { json, jsonText, type ServiceRequest, type ServiceResponse } from '../exchange.js';
import { responseJson } from '../response-json.js';
import type { TurnFacts } from '../telemetry/attributes.js';
import { eventStream } from './event-stream.js';
import { readBody } from './body.js';
import { unauthorized } from './authentication.js';
import { serveUsage, type UsageRoute } from './tenant-limits.js';
import { type Route as GenericRoute, type RouteHandler as Handler, withoutTrailingSlash } from './router.js';

/** The answer header naming the upstream of a fallback route that answered. */
export const UPSTREAM_HEADER = 'openresponses-upstream';

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

/** `GET /metrics`: what it serves and who may read it. */
export interface MetricsRoute {
  /** The Prometheus text exposition of the process's metrics. */
  scrape(): Promise<string>;
  /** Whether a request's `Authorization` header may read them: `unauthenticated` is a 401, `forbidden` (an API key the operator did not let read metrics) a 403. */
  authorized(header: string | null): Promise<'allowed' | 'unauthenticated' | 'forbidden'>;
}

/** Switches for optional routes. */
export interface RouteOptions {
  /** `GET /metrics` (Prometheus text exposition), with its own key check. */
  metrics?: MetricsRoute;
  /** The legacy `POST /v1/chat/completions`, served from the Responses pipeline. */
  chatCompletionsEndpoint?: boolean;
  /** The playground page at `/` and its script. */
  playground?: boolean;
  /** `GET /v1/usage`: usage per tenant, model and day, for the admin key. */
  usage?: UsageRoute;
}

export type RouteHandler = Handler<RouteContext>;
export type Route = GenericRoute<RouteContext, keyof RouteOptions>;

/** The routes, one line each. A route is a handler below and a line here. */
export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/healthz', handler: health, root: true, public: true },
  { method: 'POST', path: '/responses', handler: createResponse, turn: true },
  { method: 'POST', path: '/responses/compact', handler: compact, turn: true },
  { method: 'GET', path: '/responses/:id', handler: getResponse },
  { method: 'DELETE', path: '/responses/:id', handler: deleteResponse },
  { method: 'POST', path: '/responses/:id/cancel', handler: cancelResponse },
  { method: 'GET', path: '/responses/:id/input_items', handler: listInputItems },
  { method: 'GET', path: '/models', handler: models },
  {
    method: 'POST',
    path: '/chat/completions',
    handler: chatCompletions,
    option: 'chatCompletionsEndpoint',
    turn: true,
  },
  // Checks its keys itself (the API keys and a metrics-only key); never rate limited, never a turn slot.
  { method: 'GET', path: '/metrics', handler: metricsExposition, root: true, public: true, option: 'metrics' },
  // Checks the admin key itself; never a tenant's request.
  {
    method: 'GET',
    path: '/usage',
    handler: (request, context) => serveUsage(request, context.options.usage!),
    public: true,
    option: 'usage',
  },
  // The page needs no key (its API calls carry the key it is given).
  { method: 'GET', path: '/', handler: playground, root: true, public: true, option: 'playground' },
  { method: 'GET', path: '/playground.js', handler: playground, root: true, public: true, option: 'playground' },
];

async function playground(request: ServiceRequest, context: RouteContext): Promise<ServiceResponse> {
  return playgroundAsset(withoutTrailingSlash(request.path), context.basePath);
}

async function metricsExposition(request: ServiceRequest, context: RouteContext): Promise<ServiceResponse> {
  const endpoint = context.options.metrics!;
  const access = await endpoint.authorized(request.header('authorization'));
  if (access === 'unauthenticated') throw unauthorized();
  if (access === 'forbidden')
    throw new ResponsesError(
      'invalid_request',
      'metrics_not_allowed',
      'This key may not read /metrics: use the metrics key (the operator may let API keys read it).',
      null,
      403,
    );
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
    body: await endpoint.scrape(),
  };
}

async function health(): Promise<ServiceResponse> {
  return json(200, { status: 'ok' });
}

async function createResponse(request: ServiceRequest, context: RouteContext, version: SpecVersion) {
  const body = await readBody(request, context.limits);
  const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
  // The request log and metrics read the turn's facts; a turn refused before its answer is that answer's.
  const facts: TurnFacts = (request.turn = {});
  if (typeof body === 'object' && body !== null && (body as { background?: unknown }).background === true) {
    const fields = body as Record<string, unknown>;
    if (!streaming) {
      const { response, ended } = await context.background.start(
        fields,
        version,
        ownerOf(request),
        request.traceContext,
        facts,
      );
      // Answered before the turn ends: its facts are not this answer's but the background turn's, told once it has ended.
      request.turn = undefined;
      request.backgroundTurn = { facts, ended };
      return json(200, response);
    }
    // The event stream ends with the turn (the client leaving stops neither): the request's own facts.
    const run = await context.background.startStreaming(
      fields,
      version,
      ownerOf(request),
      request.cancellation,
      request.traceContext,
      facts,
    );
    return eventStream((write, backpressure) => run(write, backpressure));
  }
  const run = await context.runner.begin(
    body,
    { version, owner: ownerOf(request), cancellation: request.cancellation, facts, traceContext: request.traceContext },
    streaming,
  );
  // Which upstream of a fallback route answered.
  const headers = facts.upstream === undefined ? undefined : { [UPSTREAM_HEADER]: facts.upstream };
  if (!streaming) {
    const result = await run();
    if (result.error) throw result.error;
    // A stored turn's answer in spec shapes is the response it serialized for the store.
    return result.json && result.answer === result.response
      ? jsonText(200, result.json.response, headers)
      : jsonText(200, responseJson(result.answer), headers);
  }
  return eventStream(
    async (write, backpressure) => {
      await run(write, backpressure);
    },
    undefined,
    headers,
  );
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
    (body, watched) =>
      context.runner.begin(
        body,
        {
          version,
          owner,
          cancellation: request.cancellation,
          facts: (request.turn = {}),
          traceContext: request.traceContext,
        },
        watched,
      ),
    {},
  );
}

async function stored(request: ServiceRequest, context: RouteContext, id: string) {
  const found = await storeSpans(context.store, request.traceContext).get(id, ownerOf(request));
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
  if (!(await storeSpans(context.store, request.traceContext).delete(id!, ownerOf(request))))
    throw responseNotFound(id!);
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
