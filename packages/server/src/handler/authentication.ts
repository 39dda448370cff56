// Who a request speaks for: bearer keys (given on the command line or as digests from a tenants file), checked
// in time that does not reveal which key matched or where a guess differs.
import { ResponsesError } from '../errors.js';
import type { ServiceRequest } from '../exchange.js';
import { sha256Hex } from '../tenants.js';
import type { Middleware, ServiceHandler } from './middleware.js';

/** Tells which tenant an `Authorization` header speaks for. */
export interface Authenticator {
  /**
   * The tenant of an `Authorization` header ('open' on a server without keys), or undefined when it carries no
   * accepted key; without a promise when it is known at once (a key given on the command line, once its
   * tenant's name is made).
   */
  ownerOf(header: string | null): string | undefined | Promise<string | undefined>;
  /** True when no API keys are configured. */
  readonly open: boolean;
}

/**
 * Bearer keys, each its own tenant unless `tenants` names one. Tenants are named by configuration or by a
 * digest of the key: stores never hold the keys themselves.
 */
export function bearerAuthenticator(
  keys: readonly string[],
  tenants: Readonly<Record<string, string>> = {},
  keyDigests: ReadonlyMap<string, string> = new Map(),
): Authenticator {
  // Each key's tenant, in the order of `keys`; known once the digests are made (at start, before any request).
  let names: readonly string[] | undefined;
  const named = Promise.all(keys.map(async (key) => tenants[key] ?? `key_${(await sha256Hex(key)).slice(0, 32)}`)).then(
    (list) => (names = list),
  );
  /** The index of the accepted key a header carries, or -1. */
  const matchKey = (header: string | null): number => {
    const token = bearerToken(header);
    if (token === undefined) return -1;
    // Compare against every key so timing does not reveal which one matched.
    let matched = -1;
    for (let i = 0; i < keys.length; i++) if (constantTimeEqual(token, keys[i]!)) matched = i;
    return matched;
  };
  const open = keys.length === 0 && keyDigests.size === 0;
  const ownerOf = (header: string | null): string | undefined | Promise<string | undefined> => {
    if (open) return 'open';
    // Keys of the tenants file are known by their digest only (a lookup by digest reveals nothing of the key).
    if (keyDigests.size > 0) return ownerByDigest(header);
    const index = matchKey(header);
    if (index < 0) return undefined;
    return names ? names[index] : named.then((list) => list[index]);
  };
  const ownerByDigest = async (header: string | null): Promise<string | undefined> => {
    const token = bearerToken(header);
    const tenant = token ? keyDigests.get(await sha256Hex(token)) : undefined;
    if (tenant !== undefined) return tenant;
    const index = matchKey(header);
    return index < 0 ? undefined : (names ?? (await named))[index];
  };
  return { open, ownerOf };
}

/** The credential of `Authorization: Bearer <token>` (trimmed), or undefined. */
function bearerToken(header: string | null): string | undefined {
  if (header === null) return undefined;
  return /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
}

/** Refuses requests without a valid key, except on public paths (health checks); sets `request.owner`. */
export function authentication(
  authenticator: Authenticator,
  isPublic: (request: ServiceRequest) => boolean,
): Middleware {
  // Without keys every request is the open tenant's: nothing to read or wait for.
  if (authenticator.open)
    return (request, next) => {
      if (!isPublic(request)) request.owner = 'open';
      return next(request);
    };
  // Not an async function: a key known at once passes with no extra promise.
  return (request, next) => {
    if (isPublic(request)) return next(request);
    const owner = authenticator.ownerOf(request.header('authorization'));
    return owner instanceof Promise
      ? owner.then((found) => authenticated(found, request, next))
      : authenticated(owner, request, next);
  };
}

function authenticated(owner: string | undefined, request: ServiceRequest, next: ServiceHandler) {
  if (owner === undefined) throw unauthorized();
  request.owner = owner;
  return next(request);
}

/**
 * Compares secrets in time independent of where they differ (it depends on their lengths only). Code unit by
 * code unit: encoding both to UTF-8 first cost ~2 µs a request, more than the rest of authentication.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  const length = Math.max(a.length, b.length);
  // Past the end of the shorter one, charCodeAt is NaN, which `| 0` makes 0: no branch on the lengths.
  for (let i = 0; i < length; i++) difference |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0);
  return difference === 0;
}

export function unauthorized(): ResponsesError {
  return new ResponsesError(
    'authentication_error',
    'invalid_api_key',
    'Missing or invalid API key: send Authorization: Bearer <key>.',
  );
}
