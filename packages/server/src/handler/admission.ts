import type { ServerLimits } from '../limits.js';
import { tooManyRequests } from '../limits.js';
import type { ServiceResponse } from './http.js';
import type { Middleware } from './middleware.js';
import { type CorsSetting, originAllowed, originRefused } from './origin.js';

/**
 * Refuses requests from web pages whose origin the CORS setting does not allow (a form post or a
 * `fetch` in `no-cors` mode needs no preflight, so without this any page could drive a local server).
 */
export function originCheck(cors: CorsSetting): Middleware {
  return (request, next) => {
    const origin = request.header('origin');
    if (origin !== null && !originAllowed(origin, request.header('host'), cors)) throw originRefused(origin);
    return next(request);
  };
}

/**
 * Admission of work per tenant (`request.owner`): a token bucket of `rateLimitPerSecond` requests (off at
 * 0, the default), and at most `maxTurnsInFlightPerKey` turns per tenant and `maxTurnsInFlight` overall
 * (a turn counts until its answer, or its whole stream, has been written). Over either: 429 with
 * `Retry-After`. Runs after authentication.
 */
export function admission(
  limits: Pick<ServerLimits, 'rateLimitPerSecond' | 'rateLimitBurst' | 'maxTurnsInFlight' | 'maxTurnsInFlightPerKey'>,
  now: () => number = Date.now,
): Middleware {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const inFlight = new Map<string, number>();
  let total = 0;
  const rate = limits.rateLimitPerSecond;
  const burst = Math.max(1, limits.rateLimitBurst);

  /** Takes a token from the tenant's bucket; the seconds until one is there when it is empty. */
  const take = (owner: string): number => {
    const at = now();
    const bucket = buckets.get(owner) ?? { tokens: burst, at };
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * rate);
    bucket.at = at;
    // One bucket per tenant: tenants are configured keys, so the map stays as small as the key list.
    buckets.set(owner, bucket);
    if (bucket.tokens < 1) return (1 - bucket.tokens) / rate;
    bucket.tokens -= 1;
    return 0;
  };

  const release = (owner: string) => {
    total--;
    const count = (inFlight.get(owner) ?? 1) - 1;
    if (count === 0) inFlight.delete(owner);
    else inFlight.set(owner, count);
  };

  return async (request, next) => {
    // Public routes (health checks) have no tenant and are never limited.
    const owner = request.owner;
    if (owner === undefined) return next(request);
    if (rate > 0) {
      const wait = take(owner);
      if (wait > 0)
        throw tooManyRequests(
          'rate_limit_exceeded',
          `More than ${rate} requests per second for this API key; retry after the Retry-After seconds.`,
          wait,
        );
    }
    if (request.method !== 'POST') return next(request);
    const mine = inFlight.get(owner) ?? 0;
    if (mine >= limits.maxTurnsInFlightPerKey)
      throw tooManyRequests(
        'too_many_concurrent_requests',
        `This API key has ${mine} requests running, the most this server allows; retry when one has finished.`,
        1,
      );
    if (total >= limits.maxTurnsInFlight)
      throw tooManyRequests(
        'server_busy',
        `The server is running ${total} requests, the most it allows; retry shortly.`,
        1,
      );
    total++;
    inFlight.set(owner, mine + 1);
    let response: ServiceResponse;
    try {
      response = await next(request);
    } catch (error) {
      release(owner);
      throw error;
    }
    const body = response.body;
    if (body === null || typeof body === 'string') {
      release(owner);
      return response;
    }
    // A stream's turn runs while it is written: it counts until the stream has ended.
    return Object.assign({}, response, {
      body: {
        pipe: (...args: Parameters<typeof body.pipe>) => body.pipe(...args).finally(() => release(owner)),
      },
    });
  };
}
