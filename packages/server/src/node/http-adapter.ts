import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceRequest, ServiceResponse } from '../exchange.js';
import { resolveLimits, type ServerLimits } from '../limits.js';
import { Cancellation } from '../cancellation.js';
import { utf8Text } from './utf8-text.js';

type FetchHandler = (request: Request) => Promise<Response>;
/** What serves requests: a `ResponsesService` (or anything with its `handle`), or any fetch-style handler. */
export type NodeListenerTarget =
  | FetchHandler
  | {
      /** Answers one transport-neutral request. */
      handle(request: ServiceRequest): Promise<ServiceResponse>;
      /** The budgets the adapter reads requests under (`maxBodyBytes`, …). */
      readonly limits?: Partial<ServerLimits>;
    };

/**
 * Serves a handler from node:http, cancelling the request when the client goes away. A `ResponsesService`
 * is served from `node:http` directly (no web `Request`/`Response` objects: on Node they cost more than
 * a whole turn of the embedded model); a fetch-style handler gets a web `Request`. Event streams are
 * written chunk by chunk as they are produced; other answers at once, with their length.
 */
export function toNodeListener(target: NodeListenerTarget, options: { limits?: Partial<ServerLimits> } = {}) {
  const limits = resolveLimits(
    Object.assign({}, typeof target === 'function' ? undefined : target.limits, options.limits),
  );
  return async (req: IncomingMessage, res: ServerResponse) => {
    const cancellation = new ResponseCancellation(res);
    let response: ServiceResponse;
    let request: NodeRequest | undefined;
    try {
      response =
        typeof target === 'function'
          ? await fromWebResponse(
              await target(await webRequest(req, limits.maxBodyBytes, cancellation.signal)),
              cancellation,
            )
          : await target.handle((request = nodeRequest(req, cancellation)));
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
    // A body read only in part (past the limit) is not read on: the connection closes soon after the answer.
    if (!req.complete && !request?.bodyReadWhole) closeAfterAnswer(req, res);
    const { status, headers, body } = response;
    if (body === null || typeof body === 'string') {
      // In the headers given to writeHead, not by setHeader: with both, Node sets every header one by one.
      if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
      res.writeHead(status, headers).end(body ?? undefined);
      dropIfStalled(res, limits);
      return;
    }
    res.writeHead(status, headers);
    const writer = new BurstWriter(res);
    try {
      await body.pipe(writer.write, () => waitForReader(res, limits, cancellation));
      writer.flush();
      res.end();
      dropIfStalled(res, limits);
    } catch {
      res.destroy();
    }
  };
}

/**
 * A request's cancellation: the client went away when its response closed before it was finished. Polled
 * (`cancelled`, what a turn of the embedded model reads), it reads the response's state; a `close` listener
 * is added only once something asks to be told (`onCancel`, `signal`: upstream calls). A listener on every
 * response made Node's `resOnFinish` cost 0.7 µs a request instead of 0.1.
 */
class ResponseCancellation extends Cancellation {
  #listening = false;

  constructor(private readonly res: ServerResponse) {
    super();
  }

  override get cancelled(): boolean {
    if (!super.cancelled && clientGone(this.res)) this.cancel();
    return super.cancelled;
  }

  override get signal(): AbortSignal {
    this.#listen();
    return super.signal;
  }

  override onCancel(listener: () => void): () => void {
    this.#listen();
    return super.onCancel(listener);
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    if (clientGone(this.res)) this.cancel();
    else
      this.res.once('close', () => {
        if (!this.res.writableFinished) this.cancel();
      });
  }
}

/** Node marks a response `destroyed` when its socket closes (or it is destroyed); finished, it was answered. */
const clientGone = (res: ServerResponse) => res.destroyed && !res.writableFinished;

/**
 * Writes the events of one burst (what one upstream read or one model step yields) as one chunk of the
 * chunked encoding: each `res.write` costs Node a chunk header and three buffered writes. The burst goes
 * out on `process.nextTick`, when Node uncorks the socket anyway (so no later than before), or at once
 * past FLUSH_BYTES, so that backpressure sees it.
 */
class BurstWriter {
  private pending = '';
  private scheduled = false;

  constructor(private readonly res: ServerResponse) {}

  readonly write = (chunk: string | Uint8Array): void => {
    if (this.res.destroyed) return;
    if (typeof chunk !== 'string') {
      this.flush();
      this.res.write(chunk);
      return;
    }
    this.pending += chunk;
    if (this.pending.length >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flushScheduled);
    }
  };

  flush(): void {
    if (this.pending !== '' && !this.res.destroyed) this.res.write(this.pending);
    this.pending = '';
  }

  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    this.flush();
  };
}
const FLUSH_BYTES = 16 * 1024;

/**
 * Undefined while the client reads; otherwise a promise that settles once the socket has drained, or once
 * the client has read nothing for `stalledWriteMs`: the response is destroyed and the turn cancelled before
 * the promise settles (the socket's `close` comes later, and a turn resumed first would run on unread).
 */
function waitForReader(
  res: ServerResponse,
  limits: ServerLimits,
  cancellation: Cancellation,
): Promise<void> | undefined {
  if (res.destroyed || res.writableLength <= limits.writeHighWaterBytes) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(() => {
      res.destroy();
      cancellation.cancel(`The client read nothing of the stream for ${limits.stalledWriteMs} ms; it was dropped.`);
      done();
    }, limits.stalledWriteMs);
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * An answer that is written but not yet read holds its bytes in memory: if the client reads none of them
 * for `stalledWriteMs`, the connection is destroyed. (Small answers fit in the kernel's socket buffers and
 * never start the timer.)
 */
function dropIfStalled(res: ServerResponse, limits: ServerLimits): void {
  if (res.writableFinished || res.destroyed || res.writableLength === 0) return;
  let unread = res.writableLength;
  const timer = setInterval(() => {
    if (res.writableFinished || res.destroyed) clearInterval(timer);
    else if (res.writableLength >= unread) {
      clearInterval(timer);
      res.destroy();
    } else unread = res.writableLength;
  }, limits.stalledWriteMs);
  timer.unref();
  res.once('close', () => clearInterval(timer));
}

/**
 * After answering a request whose body was not read to its end (past the limit): the answer says
 * `Connection: close` and a FIN follows it, so a client that reads learns that nothing more is read and
 * stops sending. The rest of the body is left unread for LINGER_QUIET_MS (flow control blocks the client's
 * writes, so even a client that reads only while a write waits sees the answer), then at most LINGER_BYTES
 * more of it is drained until the client closes its side, for at most LINGER_MS. Closing with the client's
 * bytes unread would reset the connection, and a reset discards the answer still unread in the client's
 * buffer (Node itself closes a `Connection: close` answer's socket that way, and kept-alive it drained the
 * body at full speed with no FIN, so every such connection ended in a reset); reading on without bound
 * would read gigabytes of a chunked upload.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  res.once('finish', () => {
    const socket = req.socket;
    // Node's destroySoon (on a `Connection: close` answer) has ended the socket and would destroy it once
    // the FIN is out: keep the FIN, drop the destroy.
    socket.off('finish', socket.destroy);
    if (socket.writable) socket.end();
    let drained = 0;
    const cut = () => {
      clearTimeout(quiet);
      clearTimeout(timer);
      socket.destroy();
    };
    const timer = setTimeout(cut, LINGER_MS);
    timer.unref();
    const quiet = setTimeout(() => req.resume(), LINGER_QUIET_MS);
    quiet.unref();
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    // The client's FIN: everything it sent is read, so closing now resets nothing.
    socket.once('end', cut);
    socket.once('close', () => {
      clearTimeout(quiet);
      clearTimeout(timer);
    });
  });
}

// A client on loopback can write several MiB before it notices the answer; with 1 MiB the reset
// sometimes reached it before the 413 did (seen in a clean-clone CI run). Still bounded well below
// the upload it was refused for.
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 2000;
const LINGER_QUIET_MS = 250;

/** A request as the service reads it, and whether its body was taken whole (`arrivedBody`). */
type NodeRequest = ServiceRequest & { bodyReadWhole: boolean };

function nodeRequest(req: IncomingMessage, cancellation: Cancellation): NodeRequest {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const request: NodeRequest = {
    method: req.method ?? 'GET',
    path: query < 0 ? url : url.slice(0, query),
    query: query < 0 ? '' : url.slice(query + 1),
    // Node's own header object: Node builds it for every HTTP/1.1 request before the handler runs (the bare
    // server pays it too), so scanning `rawHeaders` instead would add work and save none.
    header: (name) => {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    text: async (maxBytes) => {
      // Asked for while Node still parses the request's head; the rest of its packet is parsed before this resumes.
      await undefined;
      const whole = arrivedBody(req);
      if (whole !== undefined) {
        request.bodyReadWhole = true;
        return whole.length > maxBytes ? null : utf8Text(whole);
      }
      const { chunks, size } = await readCapped(req, maxBytes);
      return size > maxBytes ? null : joinedText(chunks, size);
    },
    cancellation,
    bodyReadWhole: false,
  };
  return request;
}

/**
 * The whole body when all of it has already arrived (most JSON requests come in one packet): every byte its
 * `content-length` declares is in the request's buffer, taken at once, without listeners, a promise or a
 * switch to flowing mode. Undefined while some of it is still to come, without a declared length, or past
 * ONE_READ_BYTES: taking a longer one joins its chunks into a fresh buffer, where `readCapped` and the
 * kept scratch buffer save the allocation (a 1 MiB body of sixteen chunks: 0.69 -> 0.59 ms). Node
 * marks the request `complete` only once its parser has gone past the body, which may be after the answer (a
 * turn that awaits nothing but promises runs in between): the request's `bodyReadWhole` says that it was read
 * (a WeakSet of requests cost more than the rest of the read).
 */
function arrivedBody(req: IncomingMessage): Buffer | undefined {
  const declared = req.headers['content-length'];
  if (
    declared === undefined ||
    req.readableFlowing !== null ||
    req.readableLength !== Number(declared) ||
    req.readableLength > ONE_READ_BYTES
  )
    return undefined;
  return (req.read() as Buffer | null) ?? EMPTY_BODY;
}
const EMPTY_BODY = Buffer.alloc(0);
/** What one socket read brings at most (Node reads 64 KiB at a time). */
const ONE_READ_BYTES = 64 * 1024;

/**
 * The body's chunks, or its first chunks past `keep` bytes (`size` is then over `keep`): reading stops as soon
 * as the limit is crossed, and the request stays paused (TCP flow control holds the client back) until the
 * answer closes the connection. Plain events: an async iterator per request costs more.
 */
function readCapped(req: IncomingMessage, keep: number): Promise<{ chunks: Buffer[]; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = () => {
      req.off('data', onData);
      req.off('end', finish);
      req.off('error', reject);
      resolve({ chunks, size });
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
      if (size > keep) {
        req.pause();
        finish();
      }
    };
    req.on('data', onData);
    req.on('end', finish);
    req.on('error', reject);
  });
}

/**
 * The text of a body that came in several chunks. They are joined in a scratch buffer kept for the next
 * body (decoding copies the bytes out at once, so nothing else can reach it in between): a fresh 1 MiB
 * buffer per request cost its page faults and, as external memory, earlier collections (a 1 MiB body read
 * in 0.45 ms, 0.28 ms with the scratch). Bodies over SCRATCH_MAX_BYTES get a buffer of their own.
 */
function joinedText(chunks: readonly Buffer[], size: number): string {
  if (chunks.length === 1) return utf8Text(chunks[0]!);
  if (size > SCRATCH_MAX_BYTES) return utf8Text(Buffer.concat(chunks, size));
  if (scratch.length < size)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX_BYTES, Math.max(size, scratch.length * 2)));
  let offset = 0;
  for (const chunk of chunks) offset += chunk.copy(scratch, offset);
  return utf8Text(scratch.subarray(0, size));
}
const SCRATCH_MAX_BYTES = 4 * 1024 * 1024;
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

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
    body: hasBody ? await cappedBody(req, maxBodyBytes + 1) : undefined,
    signal,
  });
}

/** The body, or its first `keep` bytes when it is longer (enough for a fetch-style handler to tell it is too large). */
async function cappedBody(req: IncomingMessage, keep: number): Promise<BodyInit> {
  const { chunks, size } = await readCapped(req, keep);
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  return (size > keep ? body.subarray(0, keep) : body) as unknown as BodyInit;
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
