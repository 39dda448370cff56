import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** Serves a fetch-style handler from node:http, streaming both bodies and aborting on disconnect. */
export function toNodeListener(handler: (request: Request) => Promise<Response>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const host = req.headers.host ?? '127.0.0.1';
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${host}${req.url ?? '/'}`, {
      method: req.method,
      headers: toHeaders(req.headers),
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      signal: abort.signal,
      ...(hasBody ? { duplex: 'half' } : {}),
    } as RequestInit);
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      console.error(error);
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'server_error', code: 'internal_error', param: null, message: 'Unexpected server failure.' } }));
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) {
      res.end();
      return;
    }
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Respect backpressure: wait for drain when the socket buffer is full.
        if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
      }
      res.end();
    } catch {
      res.destroy();
    } finally {
      if (abort.signal.aborted) await reader.cancel().catch(() => {});
    }
  };
}

function toHeaders(headers: IncomingMessage['headers']): Headers {
  const out = new Headers();
  for (const [key, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const v of value) out.append(key, v);
    else if (value !== undefined) out.set(key, value);
  }
  return out;
}
