import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { createResponsesService, type ResponsesService, type ResponsesServiceOptions } from '../handler/service.js';
import { toNodeListener } from './http-adapter.js';
import { serveResponsesSocket, type WebSocketOptions } from './websocket.js';

export interface StartServerOptions extends ResponsesServiceOptions, WebSocketOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Where the startup warning about an open server goes (default console.warn). */
  warn?: (message: string) => void;
}

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:4321`; the API is under `/v1`. */
  url: string;
  port: number;
  service: ResponsesService;
  server: Server;
  close(): Promise<void>;
}

/** Starts the reference server: HTTP (JSON and SSE) and WebSocket on the same `/v1/responses` path. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const service = createResponsesService(options);
  if (service.open)
    (options.warn ?? console.warn)('openresponses-server: no API keys configured; the server accepts every request.');
  const server = createServer(toNodeListener(service, { maxBodyBytes: options.maxBodyBytes }));
  const sockets = new WebSocketServer({ noServer: true });
  const base = (options.basePath ?? '/v1').replace(/\/$/, '');
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (path !== `${base}/responses`) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    if (!service.authorize(request.headers.authorization ?? null)) {
      const body = JSON.stringify({
        error: {
          type: 'authentication_error',
          code: 'invalid_api_key',
          param: null,
          message: 'Missing or invalid API key: send Authorization: Bearer <key>.',
        },
      });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveResponsesSocket(ws, request, service, options));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
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
