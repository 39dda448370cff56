import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { ResponsesError } from '../errors.js';
import { createResponsesService, type ResponsesService, type ResponsesServiceOptions } from '../service/service.js';
import { toNodeListener } from './http-adapter.js';
import { memoryStore } from './store-url.js';
import type { SessionOptions } from '../websocket/session.js';
import { firstHeader, serveResponsesSocket } from './websocket.js';

/** What `startServer` takes: the service's options, the WebSocket session's, and where to listen. */
export interface StartServerOptions extends ResponsesServiceOptions, SessionOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Where the startup warning about an open server goes (default console.warn). */
  warn?: (message: string) => void;
}

/** A started server, from `startServer`. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:4321`; the API is under `/v1`. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** The service it serves (also usable directly: `service.fetch`). */
  service: ResponsesService;
  /** The underlying `node:http` server. */
  server: Server;
  /** Stops listening and closes open connections (WebSockets included). */
  close(): Promise<void>;
}

/** Starts the reference server: HTTP (JSON and SSE) and WebSocket on the same `/v1/responses` path. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  // The Node store (see `memoryStore`): with the web default's 64 MiB share, a full store turning over copied
  // three in four stored 1 MiB inputs out of the heap, each copy fresh memory (a 1 MiB stored turn in process:
  // 548 -> 287 page faults, 15-16 -> 9.7 ms).
  const service = createResponsesService({ ...options, store: options.store ?? memoryStore() });
  const warn = options.warn ?? console.warn;
  if (service.open) warn('openresponses-server: no API keys configured; the server accepts every request.');
  if (options.chatCompletionsEndpoint)
    warn(
      'openresponses-server: POST /v1/chat/completions is on. It is a legacy compatibility layer served from the Responses pipeline; new clients should use /v1/responses.',
    );
  const server = createServer(toNodeListener(service));
  // Node answers malformed requests, header overflows and timeouts itself; the body gets the spec's shape.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket));
  // Frames past the body limit close the socket with 1009; ws checks the declared length before buffering.
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: service.limits.maxBodyBytes,
    handleProtocols: selectSubprotocol,
  });
  sockets.on('error', (error) => console.error('openresponses-server: WebSocket server error', error));
  sockets.on('wsClientError', (error, socket) => {
    socket.on('error', () => socket.destroy());
    rawAnswer(
      socket,
      400,
      new ResponsesError(
        'invalid_request',
        'invalid_websocket_handshake',
        `Invalid WebSocket handshake: ${error.message}`,
      ),
    );
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A peer that resets during the handshake must not take the process down.
    socket.on('error', () => socket.destroy());
    const keyOnly = acceptSubprotocolKey(request);
    if (keyOnly) {
      rawAnswer(socket, 400, keyOnly);
      return;
    }
    const url = request.url ?? '/';
    const query = url.indexOf('?');
    void service
      .checkUpgrade({
        path: query < 0 ? url : url.slice(0, query),
        header: (name) => firstHeader(request.headers[name]),
      })
      .then((refusal) => {
        if (refusal) rawAnswer(socket, refusal.status, refusal);
        else sockets.handleUpgrade(request, socket, head, (ws) => serveResponsesSocket(ws, request, service, options));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  // Only once the port is bound. The generated key itself is never printed: terminals, CI logs and log
  // shippers keep what a process writes, and that key opens every sealed payload of the process.
  if (service.generatedEncryptionKey)
    warn(
      'openresponses-server: no encryption key configured; encrypted_content uses a key generated for this process and cannot be opened after a restart. To keep sealed content across restarts and instances, configure OPENRESPONSES_ENCRYPTION_KEYS=k1:$(openssl rand -base64 32)',
    );
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    service,
    server,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Browsers cannot set headers on a WebSocket, so a key may come as the subprotocol
 * `openresponses-api-key.<key>` beside `openresponses`. It is read into `authorization` once, so every
 * later check (authentication, ownership) sees one credential, and it is never echoed: the server selects
 * another offered protocol (`selectSubprotocol`). An offer of key protocols alone is refused here (a 400
 * saying to offer `openresponses` too): the only protocol the handshake could answer would be the key.
 */
function acceptSubprotocolKey(request: IncomingMessage): ResponsesError | undefined {
  const header = request.headers['sec-websocket-protocol'];
  if (!header) return undefined;
  const offered = header.split(',').map((p) => p.trim());
  if (offered.every((p) => p.startsWith(SUBPROTOCOL_KEY_PREFIX)))
    return new ResponsesError(
      'invalid_request',
      'invalid_websocket_handshake',
      `Offer the subprotocol 'openresponses' beside '${SUBPROTOCOL_KEY_PREFIX}<key>': the server selects it, and never answers with a key.`,
      'sec-websocket-protocol',
    );
  if (request.headers.authorization) return undefined;
  const key = offered.find((p) => p.startsWith(SUBPROTOCOL_KEY_PREFIX))?.slice(SUBPROTOCOL_KEY_PREFIX.length);
  if (key) request.headers.authorization = `Bearer ${key}`;
  return undefined;
}

/** The protocol the handshake answers: `openresponses` when offered, else the first offered that is not a key. */
function selectSubprotocol(offered: Set<string>): string | false {
  if (offered.has('openresponses')) return 'openresponses';
  for (const protocol of offered) if (!protocol.startsWith(SUBPROTOCOL_KEY_PREFIX)) return protocol;
  return false;
}
const SUBPROTOCOL_KEY_PREFIX = 'openresponses-api-key.';

/** Writes a whole HTTP answer with a spec-shaped error body on a raw socket, then closes it. */
function rawAnswer(socket: Duplex, status: number, error: ResponsesError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(error.toJSON());
  // The error's own headers too (`retry-after` on a 429).
  const extra = Object.entries(error.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra.join('')}\r\n${body}`,
  );
}

/** Node's own protocol errors (400 malformed, 408 timeout, 431 headers too large), with the spec's error body. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // Node's default handler makes the same checks: nothing to answer on a reset socket or after a response began.
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || started || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request headers are larger than this server accepts.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request was not received in time.']
        : [400, 'malformed_request', `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}).`];
  rawAnswer(socket, status, new ResponsesError('invalid_request', code, message, null, status));
}

/** Milliseconds of a duration such as `1500`, `90s`, `60m` or `2h`; null when it is not one (or not positive). */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 'ms']!;
  return ms > 0 && Number.isFinite(ms) ? Math.round(ms) : null;
}
