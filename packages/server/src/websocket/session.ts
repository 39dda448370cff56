import type { SpecVersion } from '@openresponses/zod';
import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';
import type { Admission } from '../admission.js';
import type { TenantQuota } from '../tenant-quota.js';
import { type Backpressure, negotiateVersion, parseJson } from '../exchange.js';
import { Cancellation } from '../cancellation.js';
import type { TurnRunner } from '../responses/runner.js';
import { ConnectionCache } from '../stores/connection-cache.js';
import type { InMemoryResponseStore } from '../stores/memory.js';

/**
 * All a session needs of a WebSocket: the `ws` package's sockets, the browser/Bun/Deno/workerd
 * `WebSocket`, or a test's fake all fit (`send` of text, `close` with a code and reason).
 */
export interface SessionSocket {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  /**
   * Undefined while the client keeps up with what was sent; otherwise a promise that settles once it has
   * read enough (or was dropped for not reading). Turns pause on it, and the next turn waits for it.
   */
  backpressure?: Backpressure;
}

export interface SessionOptions {
  /** How long a connection may stay open (the spec's 60 minutes by default). */
  connectionLimitMs?: number;
  /** Responses kept in connection-local memory for continuation (default 32, least recently used evicted first). */
  localCacheSize?: number;
}

/** The transport's side of a session: hand it each text message, and tell it when the socket closed. */
export interface ResponsesSession {
  /** One text message from the client (binary messages: decode them as UTF-8 first). */
  receive(message: string): void;
  /** The socket closed: the running turn is cancelled and queued ones are dropped. */
  closed(): void;
  /** Settles once no turn is running or queued. */
  idle(): Promise<void>;
}

/**
 * The WebSocket protocol on `/v1/responses`, independent of any WebSocket library: `response.create`
 * turns processed one at a time in arrival order, connection-local state so `store: false` responses can
 * be continued on the same socket, eviction of the referenced response when a continuation fails, and
 * the connection time limit.
 */
export function openResponsesSession(
  socket: SessionSocket,
  runner: TurnRunner,
  connection: {
    /** The connection's `OpenResponses-Version` header. */
    versionHeader: string | null;
    /** The tenant the upgrade was authorized for: every turn on the connection runs for it. */
    owner: Promise<string | undefined>;
    /**
     * The server's account of connections, rates and turns in flight (shared with HTTP): the connection
     * holds a connection slot while open, and each turn takes from the rate and holds a turn slot.
     */
    admission?: Admission;
    /** Per-tenant limits (shared across instances with a shared backend): a connection lease, and each turn's request rate. */
    quota?: Pick<TenantQuota, 'request' | 'connection'>;
    /** Where connection-local responses live, shared by the server's connections under one byte budget (default: this connection's own). */
    state?: InMemoryResponseStore;
  },
  options: SessionOptions = {},
): ResponsesSession {
  let isClosed = false;
  // `json`: the payload's JSON when the turn made it already (a stored turn's last event).
  const send = (payload: unknown, json?: string) => {
    if (!isClosed) socket.send(json ?? JSON.stringify(payload));
  };
  const sendError = (error: ResponsesError) =>
    send({
      type: 'error',
      status: error.status,
      error: { type: error.type, code: error.code, message: error.message, param: error.param },
    });

  let version: SpecVersion;
  try {
    version = negotiateVersion(connection.versionHeader);
  } catch (error) {
    sendError(asResponsesError(error));
    socket.close(1008, 'unsupported version');
    isClosed = true;
    return { receive: () => {}, closed: () => {}, idle: async () => {} };
  }

  // The connection's tenant and its connection slot, given back when the socket closes. `checkUpgrade` refused
  // the upgrade already if the tenant was at its limit; this refusal is the race of two upgrades for one slot.
  let endConnection: (() => void) | undefined;
  const tenant = connection.owner.then(async (owner) => {
    const resolved = owner ?? 'open';
    if (isClosed) return resolved;
    try {
      endConnection = connection.admission?.openConnection(resolved);
      const endLease = await connection.quota?.connection(resolved);
      if (endLease) {
        const endSlot = endConnection;
        endConnection = () => {
          endSlot?.();
          endLease();
        };
        // Closed while the lease was being taken.
        if (isClosed) endConnection();
      }
    } catch (error) {
      sendError(asResponsesError(error));
      socket.close(1013, 'too many connections');
      close();
    }
    return resolved;
  });

  // Connection-local responses (where `store: false` ones live), least recently used evicted first.
  const local = new ConnectionCache(runner.store, {
    maxEntries: options.localCacheSize ?? 32,
    state: connection.state,
  });

  // One in-flight response per connection: tasks run strictly in arrival order.
  const queue: Array<() => Promise<void>> = [];
  let running: Promise<void> | undefined;
  let current: Cancellation | undefined;
  const enqueue = (task: () => Promise<void>) => {
    if (isClosed) return;
    queue.push(task);
    running ??= drain();
  };
  const drain = async () => {
    // Start on a later tick so `running` is set before the first task can finish.
    await undefined;
    for (let task = queue.shift(); task && !isClosed; task = queue.shift()) await task();
    running = undefined;
  };

  const turn = async (text: string) => {
    const message = parseJson(text, runner.limits, 'The message');
    const type = (message as { type?: unknown } | null)?.type;
    if (type !== 'response.create')
      throw invalidRequest(
        'unsupported_event_type',
        `Expected a "response.create" message, got ${JSON.stringify(type ?? null)}.`,
        'type',
      );
    const previous = (message as { previous_response_id?: unknown }).previous_response_id;
    const owner = await tenant;
    if (isClosed) return;
    const cancellation = new Cancellation();
    current = cancellation;
    let endTurn: (() => void) | undefined;
    try {
      // Inside the try: a refused continuation is a failed one, and the spec evicts after any 4xx.
      connection.admission?.takeRate(owner);
      await connection.quota?.request(owner);
      endTurn = connection.admission?.startTurn(owner);
      const result = await runner.turn(message, {
        version,
        owner,
        store: local,
        onEvent: send,
        cancellation,
        backpressure: socket.backpressure,
        schema: 'WebSocketResponseCreateEventSchema',
      });
      if (result.error && typeof previous === 'string') await local.forget(previous, owner);
      await local.remember({ response: result.response, input: result.input }, owner, result.json);
      // The turn's last events may still sit unread: the next turn waits for them (or for the stall timeout).
      await socket.backpressure?.();
    } catch (error) {
      // A failed continuation evicts what it continued from (the spec's rule for 4xx and 5xx failures).
      if (typeof previous === 'string') await local.forget(previous, owner);
      throw error;
    } finally {
      current = undefined;
      endTurn?.();
    }
  };

  const close = () => {
    if (isClosed) return;
    isClosed = true;
    queue.length = 0;
    current?.cancel();
    clearTimeout(limit);
    endConnection?.();
    void local.clear();
  };

  const limitMs = options.connectionLimitMs ?? 60 * 60 * 1000;
  const limit = setTimeout(() => {
    // After the in-flight turn, tell the client why the connection ends.
    enqueue(async () => {
      sendError(
        new ResponsesError(
          'invalid_request',
          'websocket_connection_limit_reached',
          `WebSocket connections are limited to ${formatDuration(limitMs)}; open a new connection.`,
          null,
          400,
        ),
      );
      socket.close(1000, 'connection limit reached');
    });
  }, limitMs);
  // Node and Bun timers would keep the process alive; web runtimes' numeric ids have no unref.
  (limit as { unref?: () => void }).unref?.();

  return {
    receive: (message) =>
      enqueue(() =>
        turn(message).catch((error: unknown) => {
          if (!(error instanceof ResponsesError)) console.error(error);
          sendError(asResponsesError(error));
        }),
      ),
    closed: close,
    idle: async () => {
      while (running) await running;
    },
  };
}

/** A limit as people say it: "60 minutes", "1 minute 30 seconds", "45 seconds", "500 milliseconds". */
export function formatDuration(ms: number): string {
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;
  if (ms < 1000) return unit(Math.round(ms), 'millisecond');
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return unit(seconds, 'second');
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? unit(minutes, 'minute') : `${unit(minutes, 'minute')} ${unit(seconds % 60, 'second')}`;
}
