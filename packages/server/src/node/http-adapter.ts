import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Serves a fetch-style handler from node:http, aborting on disconnect. Request bodies are read into
 * memory up to `maxBodyBytes` + 1 (the handler then answers 413 for anything longer): far cheaper than
 * a web stream over the socket. Event streams are piped chunk by chunk; other answers are written at once.
 */
export function toNodeListener(handler: (request: Request) => Promise<Response>, options: { maxBodyBytes?: number } = {}) {
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
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
      body: hasBody ? ((await readCapped(req, maxBodyBytes + 1)) as unknown as BodyInit) : undefined,
      signal: abort.signal,
    });
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      console.error(error);
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'server_error', code: 'internal_error', param: null, message: 'Unexpected server failure.' } }));
      return;
    }
    if (!response.body || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(body);
      return;
    }
    res.writeHead(response.status, Object.fromEntries(response.headers));
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

/** The request body, up to `limit` bytes (the rest is drained, not kept). */
async function readCapped(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    if (size >= limit) continue;
    const kept = chunk.length > limit - size ? chunk.subarray(0, limit - size) : chunk;
    chunks.push(kept);
    size += kept.length;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
