import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceRequest, ServiceResponse } from '../handler/http.js';
import { Cancellation } from '../responses/cancellation.js';

type FetchHandler = (request: Request) => Promise<Response>;
/** What serves requests: a `ResponsesService` (or anything with its `handle`), or any fetch-style handler. */
export type NodeListenerTarget = FetchHandler | { handle(request: ServiceRequest): Promise<ServiceResponse> };

/**
 * Serves a handler from node:http, cancelling the request when the client goes away. A `ResponsesService`
 * is served from `node:http` directly (no web `Request`/`Response` objects: on Node they cost more than
 * a whole turn of the embedded model); a fetch-style handler gets a web `Request`. Event streams are
 * written chunk by chunk as they are produced; other answers at once, with their length.
 */
export function toNodeListener(target: NodeListenerTarget, options: { maxBodyBytes?: number } = {}) {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  return async (req: IncomingMessage, res: ServerResponse) => {
    const cancellation = new Cancellation();
    res.on('close', () => {
      if (!res.writableFinished) cancellation.cancel();
    });
    let response: ServiceResponse;
    try {
      response =
        typeof target === 'function'
          ? await fromWebResponse(await target(await webRequest(req, maxBodyBytes, cancellation.signal)), cancellation)
          : await target.handle(nodeRequest(req, cancellation));
    } catch (error) {
      console.error(error);
      const body = JSON.stringify({
        error: { type: 'server_error', code: 'internal_error', param: null, message: 'Unexpected server failure.' },
      });
      res
        .writeHead(500, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) })
        .end(body);
      return;
    }
    const { status, headers, body } = response;
    if (body === null || typeof body === 'string') {
      if (body !== null) res.setHeader('content-length', Buffer.byteLength(body));
      res.writeHead(status, headers).end(body ?? undefined);
      return;
    }
    res.writeHead(status, headers);
    try {
      // The socket buffers what the client has not read yet; a client that went away stops the turn through the cancellation.
      await body.pipe((chunk) => {
        if (!res.destroyed) res.write(chunk);
      });
      res.end();
    } catch {
      res.destroy();
    }
  };
}

function nodeRequest(req: IncomingMessage, cancellation: Cancellation): ServiceRequest {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return {
    method: req.method ?? 'GET',
    path: query < 0 ? url : url.slice(0, query),
    header: (name) => {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    text: async (maxBytes) => {
      const { body, size } = await readCapped(req, maxBytes);
      return size > maxBytes ? null : body.toString('utf8');
    },
    cancellation,
  };
}

/** The first `keep` bytes of the body and its whole size (the rest is drained, not kept). Plain events: an async iterator per request costs more. */
function readCapped(req: IncomingMessage, keep: number): Promise<{ body: Buffer; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let kept = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (kept >= keep) return;
      const part = chunk.length > keep - kept ? chunk.subarray(0, keep - kept) : chunk;
      chunks.push(part);
      kept += part.length;
    });
    req.on('end', () => resolve({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), size }));
    req.on('error', reject);
  });
}

/** A web `Request` for a fetch-style handler; the body is cut one byte past the limit, enough for it to answer 413. */
async function webRequest(req: IncomingMessage, maxBodyBytes: number, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.set(key, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: hasBody ? ((await readCapped(req, maxBodyBytes + 1)).body as unknown as BodyInit) : undefined,
    signal,
  });
}

/** A fetch-style handler's answer, to be written like the service's own: event streams chunk by chunk. */
async function fromWebResponse(response: Response, cancellation: Cancellation): Promise<ServiceResponse> {
  const headers = Object.fromEntries(response.headers);
  if (!response.body) return { status: response.status, headers, body: null };
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream'))
    return { status: response.status, headers, body: await response.text() };
  const reader = response.body.getReader();
  return {
    status: response.status,
    headers,
    body: {
      pipe: async (write) => {
        try {
          for (let next = await reader.read(); !next.done; next = await reader.read()) write(next.value);
        } finally {
          if (cancellation.cancelled) await reader.cancel().catch(() => {});
        }
      },
    },
  };
}
