import { type ServerLimits, tooManyRequests } from './limits.js';
import { countRejection } from './telemetry/metrics.js';

/**
 * The work tenants (`request.owner`, one per API key unless configured otherwise) may start, shared by
 * HTTP requests and WebSocket sessions: a token bucket of `rateLimitPerSecond` requests (off at 0, the
 * default), at most `maxTurnsInFlightPerKey` turns per tenant and `maxTurnsInFlight` overall, and at most
 * `maxWebSocketConnectionsPerKey` open WebSocket connections per tenant and `maxWebSocketConnections`
 * overall. Each refusal is a 429 with `Retry-After`.
 */
export interface Admission {
  /** Takes one request from the tenant's bucket (when rate limiting is on); throws the 429 when it is empty. */
  takeRate(owner: string): void;
  /** Takes a turn slot; returns what gives it back (once, however often it is called). Throws the 429 when full. */
  startTurn(owner: string): () => void;
  /** Throws the 429 a new WebSocket connection of the tenant would get now, without taking a slot. */
  checkConnection(owner: string): void;
  /** Takes a WebSocket connection slot; returns what gives it back. Throws the 429 when full. */
  openConnection(owner: string): () => void;
  /** Turns running and WebSocket connections open now, over every tenant (the metrics' gauges). */
  held(): { turns: number; connections: number };
}

export type AdmissionLimits = Pick<
  ServerLimits,
  | 'rateLimitPerSecond'
  | 'rateLimitBurst'
  | 'maxTurnsInFlight'
  | 'maxTurnsInFlightPerKey'
  | 'maxWebSocketConnections'
  | 'maxWebSocketConnectionsPerKey'
>;

export function createAdmission(limits: AdmissionLimits, now: () => number = Date.now): Admission {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const rate = limits.rateLimitPerSecond;
  const burst = Math.max(1, limits.rateLimitBurst);
  const turns = slots(
    limits.maxTurnsInFlightPerKey,
    limits.maxTurnsInFlight,
    (mine) =>
      tooManyRequests(
        'too_many_concurrent_requests',
        `This API key has ${mine} requests running, the most this server allows; retry when one has finished.`,
        1,
      ),
    (total) =>
      tooManyRequests('server_busy', `The server is running ${total} requests, the most it allows; retry shortly.`, 1),
  );
  const connections = slots(
    limits.maxWebSocketConnectionsPerKey,
    limits.maxWebSocketConnections,
    (mine) =>
      tooManyRequests(
        'too_many_connections',
        `This API key has ${mine} WebSocket connections open, the most this server allows; close one or retry later.`,
        1,
      ),
    (total) =>
      tooManyRequests(
        'server_busy',
        `The server has ${total} WebSocket connections open, the most it allows; retry shortly.`,
        1,
      ),
  );
  return {
    takeRate(owner) {
      if (rate <= 0) return;
      const at = now();
      const bucket = buckets.get(owner) ?? { tokens: burst, at };
      bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * rate);
      bucket.at = at;
      // One bucket per tenant: tenants are configured keys, so the map stays as small as the key list.
      buckets.set(owner, bucket);
      if (bucket.tokens < 1)
        throw refused(
          tooManyRequests(
            'rate_limit_exceeded',
            `More than ${rate} requests per second for this API key; retry after the Retry-After seconds.`,
            (1 - bucket.tokens) / rate,
          ),
        );
      bucket.tokens -= 1;
    },
    startTurn: turns.take,
    checkConnection: connections.check,
    openConnection: connections.take,
    held: () => ({ turns: turns.held(), connections: connections.held() }),
  };
}

/** Counted slots per tenant and overall; `refuse…` build the error for a full tenant or a full server. */
function slots(
  perOwner: number,
  overall: number,
  refuseOwner: (held: number) => Error,
  refuseOverall: (held: number) => Error,
) {
  const held = new Map<string, number>();
  let total = 0;
  const check = (owner: string) => {
    const mine = held.get(owner) ?? 0;
    if (mine >= perOwner) throw refused(refuseOwner(mine));
    if (total >= overall) throw refused(refuseOverall(total));
  };
  const take = (owner: string) => {
    check(owner);
    total++;
    held.set(owner, (held.get(owner) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      total--;
      const count = (held.get(owner) ?? 1) - 1;
      if (count === 0) held.delete(owner);
      else held.set(owner, count);
    };
  };
  return { check, take, held: () => total };
}

/** Counts a refusal by its code (the metrics' `openresponses.rejections`) and returns it to be thrown. */
function refused<E extends Error>(error: E): E {
  countRejection((error as Error & { code?: string }).code ?? 'too_many_requests');
  return error;
}
