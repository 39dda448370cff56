// A hostile or broken Chat Completions upstream on 127.0.0.1, for tests and for anyone who wants to point a
// gateway at one: each behaviour is a named entry of a table (HOSTILE_BEHAVIOURS), selected by the model
// name of a chat request or by a path prefix (`<origin>/<behaviour>/v1`, which also reaches `GET /models`).
// It counts its open connections, so a test can assert the gateway released the upstream connection, and
// writes with backpressure, so the upstream itself never holds more than one chunk: what grows is the gateway.
// Every answer says `connection: close`: once the gateway has read or dropped an answer, no socket stays open.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { HOSTILE_BEHAVIOURS } from './hostile-behaviours.js';

/** What a behaviour gets for one request. */
export interface HostileExchange {
  /** The gateway's request (its body already read into `body`). */
  readonly request: IncomingMessage;
  /** The answer to write; prefer `write`, which waits for the socket. */
  readonly response: ServerResponse;
  /** `/chat/completions`, `/messages` or `/models` (the path after `/v1`; the whole path under a pinned behaviour without `/v1`). */
  readonly endpoint: string;
  /** The request's JSON body (`{}` for a GET or a body that is not JSON). */
  readonly body: Record<string, unknown>;
  /** Whether the request asked for a stream. */
  readonly stream: boolean;
  /** The key in `Authorization: Bearer <key>`, `x-api-key` or `x-goog-api-key` ('' without one). */
  readonly apiKey: string;
  /** The sizes and pace the upstream was started with. */
  readonly options: Readonly<Required<HostileSizes>>;
  /**
   * Writes with backpressure: resolves true once the chunk is handed to the socket, false once the gateway
   * closed the connection (stop then). Past `options.maxBytes` in total it ends the connection and says false.
   * Every 64 KiB it lets the event loop turn first, so a flood never starves what shares the process.
   */
  write(chunk: string): Promise<boolean>;
  /** Waits `ms`; false when the connection closed meanwhile. */
  pause(ms: number): Promise<boolean>;
  /** Whether the connection is closed. */
  readonly closed: boolean;
}

export { HOSTILE_BEHAVIOURS };

/** One way of answering: a named entry of `HOSTILE_BEHAVIOURS`, or one of yours in `behaviours`. */
export interface HostileBehaviour {
  /** What the upstream does, in one line (tests and the README show it). */
  description: string;
  /** Answers one request; may run until the connection closes. */
  serve(exchange: HostileExchange): Promise<void> | void;
}

/** The sizes and pace of the behaviours (each has a default). */
export interface HostileSizes {
  /** Bytes a finite "huge" answer has (huge JSON, error body, model list; the cut answer's announced length) (1 MiB). */
  bytes?: number;
  /** How many of a countable thing (tool calls) (10,000). */
  count?: number;
  /** Pause between writes of the paced behaviours (keep-alives, drips), in ms (20). */
  intervalMs?: number;
  /** Total bytes after which an endless behaviour gives up and ends the connection (a guard for the tests' own sake) (1 GiB). */
  maxBytes?: number;
}

/** How `startHostileUpstream` sets the upstream up: the sizes, and behaviours of your own. */
export interface HostileUpstreamOptions extends HostileSizes {
  /** More behaviours, or replacements of the built-in ones, by name. */
  behaviours?: Record<string, HostileBehaviour>;
}

/** One request the hostile upstream answered, and what became of it. */
export interface ServedRequest {
  /** The behaviour that answered it. */
  behaviour: string;
  /** The path it asked for: `/chat/completions`, `/messages` or `/models` (see `HostileExchange.endpoint`). */
  endpoint: string;
  /** Bytes of body written to the gateway. */
  bytesWritten: number;
  /** Whether the gateway closed the connection before the answer was complete. */
  closedByGateway: boolean;
}

/** A running hostile upstream, from `startHostileUpstream`. */
export interface HostileUpstream {
  /** The API root that answers by model name, `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** The API root where every request gets `behaviour` (also `GET /models`). */
  urlFor(behaviour: string): string;
  /** Connections open now (the gateway's sockets to this upstream). */
  readonly openConnections: number;
  /** Requests answered so far, with what happened to each. */
  readonly served: ServedRequest[];
  /** Resolves once at most `count` connections are open; rejects after `timeoutMs` (default 10 s). */
  waitForConnections(count?: number, timeoutMs?: number): Promise<void>;
  /** Stops the upstream: ends its open connections and closes the port. */
  close(): Promise<void>;
}

const DEFAULT_SIZES: Required<HostileSizes> = {
  bytes: 1024 * 1024,
  count: 10_000,
  intervalMs: 20,
  maxBytes: 1024 * 1024 * 1024,
};
/** The most request body the upstream reads (it is a test tool, but it holds what it is sent). */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/**
 * Bytes one exchange writes between two turns of its own process's event loop. While the socket takes every
 * write (a gateway on another core keeps up), a flood's writes resolve on microtasks and never give the loop a
 * turn: whatever shares the process (the hostile contract's /healthz probe and its client) waited seconds, and
 * the probe counted the gateway's CPU meanwhile as a stall of the gateway's own.
 */
const WRITE_BYTES_PER_TURN = 64 * 1024;

/**
 * Starts the hostile upstream on a free port of 127.0.0.1. A chat request is answered by the behaviour named
 * by its `model` (`short-answer` when the name is none of them); under `urlFor(name)` every request is.
 */
export async function startHostileUpstream(options: HostileUpstreamOptions = {}): Promise<HostileUpstream> {
  const behaviours: Record<string, HostileBehaviour> = { ...HOSTILE_BEHAVIOURS, ...options.behaviours };
  const sizes: Required<HostileSizes> = {
    bytes: options.bytes ?? DEFAULT_SIZES.bytes,
    count: options.count ?? DEFAULT_SIZES.count,
    intervalMs: options.intervalMs ?? DEFAULT_SIZES.intervalMs,
    maxBytes: options.maxBytes ?? DEFAULT_SIZES.maxBytes,
  };
  const sockets = new Set<Socket>();
  const served: ServedRequest[] = [];
  const server = createServer((request, response) => {
    void answer(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://upstream');
    response.setHeader('connection', 'close');
    // `/<behaviour>/…` pins a behaviour (whatever API path follows: `/v1/…`, `/v1beta/…`); else `/v1/…` picks by model.
    const first = /^\/([^/]+)(\/.*)?$/.exec(url.pathname);
    const firstName = first ? decodeURIComponent(first[1]!) : '';
    const pinned = firstName in behaviours ? firstName : undefined;
    const rest = pinned ? (first![2] ?? '/') : url.pathname;
    const path = /^\/v1(\/.*)$/.exec(rest);
    if (!path && !pinned) {
      sendRaw(response, 404, { error: { message: `no route ${url.pathname}` } });
      return;
    }
    const endpoint = path ? path[1]! : rest;
    const body = await readBody(request);
    const name = pinned ?? (typeof body.model === 'string' && body.model in behaviours ? body.model : 'short-answer');
    const behaviour = behaviours[name];
    if (!behaviour) {
      sendRaw(response, 404, { error: { message: `no behaviour ${name}` } });
      return;
    }
    const record: ServedRequest = { behaviour: name, endpoint, bytesWritten: 0, closedByGateway: false };
    served.push(record);
    let closed = false;
    let sinceTurn = 0;
    // One listener for the whole exchange: a race per write would leave one behind each time.
    const whenClosed = new Promise<void>((resolve) =>
      response.once('close', () => {
        closed = true;
        if (!response.writableFinished) record.closedByGateway = true;
        resolve();
      }),
    );
    const exchange: HostileExchange = {
      request,
      response,
      endpoint,
      body,
      stream: body.stream === true,
      apiKey:
        /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ??
        (request.headers['x-api-key'] as string | undefined) ??
        (request.headers['x-goog-api-key'] as string | undefined) ??
        '',
      options: sizes,
      get closed() {
        return closed;
      },
      async write(text) {
        if (sinceTurn >= WRITE_BYTES_PER_TURN) {
          sinceTurn = 0;
          await nextLoopTurn();
        }
        if (closed) return false;
        if (record.bytesWritten >= sizes.maxBytes) {
          response.destroy();
          return false;
        }
        const bytes = Buffer.byteLength(text);
        record.bytesWritten += bytes;
        sinceTurn += bytes;
        if (response.write(text)) return !closed;
        await Promise.race([new Promise((resolve) => response.once('drain', resolve)), whenClosed]);
        return !closed;
      },
      async pause(ms) {
        if (closed) return false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms))), whenClosed]);
        clearTimeout(timer);
        return !closed;
      },
    };
    await behaviour.serve(exchange);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    urlFor: (behaviour) => `${origin}/${encodeURIComponent(behaviour)}/v1`,
    get openConnections() {
      return sockets.size;
    },
    served,
    async waitForConnections(count = 0, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (sockets.size > count) {
        if (Date.now() > until)
          throw new Error(
            `the hostile upstream still has ${sockets.size} open connections (expected at most ${count})`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const piece of request) {
    length += (piece as Buffer).byteLength;
    if (length > MAX_REQUEST_BYTES) break;
    chunks.push(piece as Buffer);
  }
  try {
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function sendRaw(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}
