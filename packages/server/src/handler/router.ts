import { LATEST_SPEC_VERSION, type SpecVersion } from '@openresponses/zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { negotiateVersion, type ServiceRequest, type ServiceResponse } from '../exchange.js';
import type { ServiceHandler } from './middleware.js';

/** Answers one route. `version` is the negotiated spec version; `params` are the path's `:name` segments, decoded, in order. */
export type RouteHandler<Context> = (
  request: ServiceRequest,
  context: Context,
  version: SpecVersion,
  params: readonly string[],
) => Promise<ServiceResponse>;

/** One line of a route table: data the router matches on, and the handler it calls with the table's context. */
export interface Route<Context, Option extends string = string> {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the base path (`/v1`) unless `root`; a `:name` segment matches one path segment. */
  path: string;
  handler: RouteHandler<Context>;
  /** Outside the base path. */
  root?: boolean;
  /** Served without authentication or version negotiation. */
  public?: boolean;
  /** Served only when this option is on. */
  option?: Option;
  /** Runs a model turn: takes one of the tenant's turn slots (admission) while it answers. */
  turn?: boolean;
}

export interface Router {
  handle: ServiceHandler;
  /** Whether a request is for a public route (no authentication). */
  isPublic(request: ServiceRequest): boolean;
  /** Whether a request is for a route that runs a turn (reads, deletes and cancels never do). */
  takesTurn(request: ServiceRequest): boolean;
}

/** The routes of one path, by method. */
type Methods<Context> = Map<string, Route<Context, string>>;
const NO_PARAMS: readonly string[] = [];

/**
 * Matches literal paths with one map lookup (the hot path) and `:name` paths by pattern; a literal path
 * wins over a pattern (`/responses/compact` is not a response id). A known path with another method is 405.
 */
export function createRouter<Context, Option extends string>(
  routes: readonly Route<Context, Option>[],
  context: Context,
  basePath: string,
  enabled: (option: Option) => boolean,
): Router {
  type PathMethods = Methods<Context>;
  const literal = new Map<string, PathMethods>();
  const patterns: Array<{ pattern: RegExp; methods: PathMethods }> = [];
  const patternMethods = new Map<string, PathMethods>();
  // Each route's template under the base path (`/v1/responses/:id`): `request.route` for spans, metrics and logs.
  const templates = new Map<Route<Context, string>, string>();
  for (const route of routes) {
    if (route.option && !enabled(route.option)) continue;
    const path = route.root ? route.path : `${basePath}${route.path}`;
    templates.set(route, path);
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

  const find = (path: string): { methods: PathMethods; params: readonly string[] } | undefined => {
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
      request.route = templates.get(route);
      const version = route.public ? LATEST_SPEC_VERSION : negotiateVersion(request.header('openresponses-version'));
      const answer = route.handler(request, context, version, found?.params ?? NO_PARAMS);
      return head ? answer.then((response) => Object.assign({}, response, { body: null })) : answer;
    },
    takesTurn: (request) => {
      const path = withoutTrailingSlash(request.path);
      const methods = literal.get(path) ?? patterns.find(({ pattern }) => pattern.test(path))?.methods;
      return methods?.get(request.method)?.turn === true;
    },
    isPublic: (request) =>
      literal.get(withoutTrailingSlash(request.path))?.get(request.method === 'HEAD' ? 'GET' : request.method)
        ?.public === true,
  };
}

/** The `Allow` header of a path: its methods, and HEAD where GET is served. */
function allowed(methods: ReadonlyMap<string, unknown>): string {
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
