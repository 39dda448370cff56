import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { onAbort } from '../cancellation.js';
import { DEFAULT_LIMITS, parseUpstreamJson } from '../limits.js';
import type { UpstreamBodyReader, UpstreamFetch, UpstreamRequestInit, UpstreamResponse } from '../models/upstream.js';
import { type BoundedText, READ_WHOLE, type WholeBodyReading } from '../models/upstream-body.js';

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/**
 * The upstream `fetch` of the Node entry (Chat Completions providers get it): `node:http` with keep-alive
 * agents, answering with a small `UpstreamResponse` rather than web `Response`/`Headers`/`ReadableStream`
 * objects. Measured on 2 cores, 16 concurrent POSTs to a local stub: Node 20's global fetch (undici)
 * 180-600 requests/s, `node:http` behind a web `Response` 4,500; dropping the web objects cut the gateway's
 * CPU per request by ~40% (server README, Gateway). It covers what providers use: method, headers, a string
 * body, `signal` or `abort`, a streamed body.
 */
export const nodeFetch: UpstreamFetch = (url: string, init: UpstreamRequestInit) => {
  const target = parsedUrl(url);
  // A traced call's `traceparent` is appended to the provider's header list (made once), not copied in.
  const traceparent = init.traceparent;
  const headers =
    traceparent === undefined
      ? requestHeaders(target, init.headers, init.body)
      : requestHeaders(target, init.untracedHeaders ?? init.headers, init.body, traceparent);
  // `abort` when the caller gives one: reading `signal` may make an AbortSignal.
  const cancellation = init.abort;
  const signal = cancellation ? undefined : init.signal;
  return new Promise((resolve, reject) => {
    if (cancellation?.cancelled || signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    let answer: IncomingMessage | undefined;
    let request: ClientRequest;
    const abort = () => {
      const reason = abortError(signal);
      if (answer) answer.destroy(reason);
      request.destroy(reason);
      reject(reason);
    };
    const stopFollowing = cancellation ? cancellation.onCancel(abort) : onAbort(signal, abort);
    const send = (attempt: number) => {
      request = (target.secure ? httpsRequest : httpRequest)(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          method: init.method ?? 'GET',
          headers,
          agent: target.secure ? agents.https : agents.http,
        },
        (response) => {
          answer = response;
          // Followed until the body is read or dropped, so an abort also stops a streamed body.
          response.once('close', stopFollowing);
          resolve(new NodeUpstreamResponse(response, init.maxBodyBytes ?? DEFAULT_LIMITS.maxUpstreamBodyBytes));
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A pooled connection the upstream closed while idle fails before any answer: the request never
        // reached it, so it goes once more on a fresh connection (Node's documented `reusedSocket` retry).
        // Seen as 500 upstream_unavailable ("socket hang up") under load in the gateway benches.
        if (attempt === 0 && !answer && request.reusedSocket && isClosedIdleConnection(error)) {
          send(1);
          return;
        }
        stopFollowing();
        reject(error);
      });
      request.end(init.body);
    };
    send(0);
  });
};

function isClosedIdleConnection(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ECONNRESET' || error.code === 'EPIPE';
}

function abortError(signal: AbortSignal | undefined): Error {
  return (signal?.reason as Error | undefined) ?? new DOMException('The upstream request was aborted.', 'AbortError');
}

/** A request's headers as Node's flat list: the provider's, without `content-length`, with `host` unless given. */
interface HeaderList {
  host: string;
  names: string[];
  /** Whether a header is `expect`, which only Node's object path handles (`100-continue`). */
  expects: boolean;
  /** Whether a header is `traceparent` (a call's own then replaces it, through the object path). */
  traced: boolean;
}

/** Header lists by the headers object a provider sends with each call (one per provider, or a traced copy). */
const headerLists = new WeakMap<Record<string, string>, HeaderList>();

/**
 * What `http.request` is given as headers: a flat `[name, value, …]` list with `host` and `content-length`.
 * Given a list, Node writes the request head from it at once (validating each name and value) instead of a
 * `setHeader` and several `getHeader`s per name: 0.80x the CPU of a whole keep-alive exchange with the
 * same headers as an object (one process, interleaved rounds). Names count case-insensitively, the last one
 * winning, as with `setHeader`; `content-length` is always the body's. The list of a headers object is made
 * once: a provider sends the same one with every call.
 */
function requestHeaders(
  target: ParsedUrl,
  headers: Record<string, string>,
  body: string | undefined,
  traceparent?: string,
): string[] | Record<string, string> {
  let made = headerLists.get(headers);
  if (made?.host !== target.host) {
    made = headerListOf(target.host, headers);
    headerLists.set(headers, made);
  }
  // The provider's own `traceparent` (replaced by the call's) or an `expect`: the headers as an object with it.
  if (traceparent !== undefined && (made.expects || made.traced))
    return requestHeaders(target, Object.assign({}, headers, { traceparent }), body);
  if (made.expects)
    return body === undefined
      ? headers
      : Object.assign({}, headers, { 'content-length': String(Buffer.byteLength(body)) });
  if (body === undefined && traceparent === undefined) return made.names;
  // A copy and a push: Array.prototype.concat takes its generic path (spreadable checks per argument), 1.25
  // against 0.31 µs here (Node 20, tight loop).
  const names = made.names.slice();
  if (traceparent !== undefined) names.push('traceparent', traceparent);
  if (body !== undefined) names.push('content-length', String(Buffer.byteLength(body)));
  return names;
}

function headerListOf(host: string, headers: Record<string, string>): HeaderList {
  const byName = new Map<string, [string, string]>([['host', ['host', host]]]);
  let expects = false;
  let traced = false;
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-length') continue;
    if (lower === 'expect') expects = true;
    if (lower === 'traceparent') traced = true;
    byName.set(lower, [name, headers[name]!]);
  }
  return { host, names: [...byName.values()].flat(), expects, traced };
}

interface ParsedUrl {
  secure: boolean;
  /** The `host` header: the host with its port unless the scheme's default (IPv6 in brackets). */
  host: string;
  protocol: string;
  hostname: string;
  port: string;
  path: string;
}

/** Parsed URLs by text: a provider calls one endpoint over and over (bounded, in case of many). */
const parsedUrls = new Map<string, ParsedUrl>();
function parsedUrl(text: string): ParsedUrl {
  let parsed = parsedUrls.get(text);
  if (parsed) return parsed;
  const url = new URL(text);
  parsed = {
    secure: url.protocol === 'https:',
    host: url.host,
    protocol: url.protocol,
    // `[::1]` is written with brackets in a URL, without them as a host to connect to.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    path: url.pathname + url.search,
  };
  if (parsedUrls.size >= 64) parsedUrls.clear();
  parsedUrls.set(text, parsed);
  return parsed;
}

/** An upstream answer read straight from the `IncomingMessage`. */
class NodeUpstreamResponse implements UpstreamResponse, WholeBodyReading {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): UpstreamBodyReader } | null;

  constructor(
    private readonly message: IncomingMessage,
    private readonly maxBodyBytes: number,
  ) {
    this.status = message.statusCode ?? 502;
    this.headers = new MessageHeaders(message);
    const empty = this.status === 204 || this.status === 205 || this.status === 304;
    if (empty) message.resume();
    this.body = empty ? null : new MessageBody(message);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** The body, at most `maxBodyBytes` of it: past that the answer is dropped and this fails. */
  async text(): Promise<string> {
    const max = this.maxBodyBytes;
    const body = await this[READ_WHOLE](max, noop);
    if (body.over) throw new Error(`The upstream answer is larger than ${max} bytes.`);
    return body.text;
  }

  /** The body from the message's own events, at most `max` bytes: past that the answer is dropped (`over`). */
  [READ_WHOLE](max: number, onChunk: () => void): Promise<BoundedText> {
    // An answer without a body (204, 205, 304) was let flow and may have ended already.
    if (!this.body) return Promise.resolve({ text: '', over: false });
    const message = this.message;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let ended = false;
      message.on('data', (chunk: Buffer) => {
        bytes += chunk.byteLength;
        if (bytes <= max) {
          chunks.push(chunk);
          onChunk();
        } else {
          chunks.length = 0;
          message.destroy();
          resolve({ text: '', over: true });
        }
      });
      message.once('end', () => {
        ended = true;
        resolve({ text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'), over: false });
      });
      message.once('error', reject);
      // Closed before its end was read (cut, or dropped by an abort after the last byte came): never left waiting.
      message.once('close', () => {
        if (!ended) reject(new Error('The upstream connection closed before the answer ended.'));
      });
    });
  }

  async json(): Promise<unknown> {
    return parseUpstreamJson(await this.text(), {
      maxUpstreamBodyBytes: this.maxBodyBytes,
      maxUpstreamJsonDepth: DEFAULT_LIMITS.maxUpstreamJsonDepth,
    });
  }
}

class MessageHeaders {
  constructor(private readonly message: IncomingMessage) {}

  get(name: string): string | null {
    const value = this.message.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}

class MessageBody {
  constructor(private readonly message: IncomingMessage) {}

  getReader(): UpstreamBodyReader {
    return new MessageReader(this.message);
  }
}

const noop = () => {};

const DONE: ReadableStreamReadResult<Uint8Array> = Object.freeze({ done: true, value: undefined });
/** Bytes read ahead of the caller before the message is paused (Node's own readable high-water mark is 16 KiB). */
const UNREAD_HIGH_WATER = 64 * 1024;

/**
 * The message's chunks as `read()`s: each read answers everything that arrived since the last one, as one
 * chunk (an upstream's SSE events come as many small chunked-encoding chunks in one socket read, and one
 * read for all of them is one turn of the caller's loop rather than one per event). It ends with the
 * message, fails with its error (or when it closes before its end), and pauses the message while more than
 * UNREAD_HIGH_WATER bytes wait unread (backpressure). Node's own async iterator goes through an async
 * generator and end-of-stream watchers, which cost a gateway turn more than a bare translator's whole read
 * of the answer (hot-path profile, bench/README.md); pausing after every chunk made each event wait for a
 * `resume()` tick, so the turn wrote each of them to the client in its own packet (+0.2 ms to the first
 * token, measured with strace).
 */
class MessageReader implements UpstreamBodyReader {
  private unread: Buffer[] = [];
  private unreadBytes = 0;
  private ended = false;
  private failure: Error | undefined;
  private waiting:
    | { resolve(result: ReadableStreamReadResult<Uint8Array>): void; reject(error: Error): void }
    | undefined;

  constructor(private readonly message: IncomingMessage) {
    message.on('data', (chunk: Buffer) => {
      const waiting = this.waiting;
      if (waiting) {
        this.waiting = undefined;
        // Answered on a later microtask: the chunks of the same socket read arrive first and go with it.
        this.unread.push(chunk);
        this.unreadBytes += chunk.byteLength;
        queueMicrotask(() => waiting.resolve(this.take()));
        return;
      }
      this.unread.push(chunk);
      this.unreadBytes += chunk.byteLength;
      if (this.unreadBytes > UNREAD_HIGH_WATER) message.pause();
    });
    message.once('end', () => {
      this.ended = true;
      this.settle();
    });
    message.once('error', (error: Error) => this.fail(error));
    message.once('close', () => {
      if (!this.ended) this.fail(new Error('The upstream connection closed before the answer ended.'));
    });
  }

  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    if (this.unreadBytes > 0 || this.unread.length > 0) return Promise.resolve(this.take());
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** Everything unread, as one chunk; the message flows again if it was paused. */
  private take(): ReadableStreamReadResult<Uint8Array> {
    const unread = this.unread;
    const value = unread.length === 1 ? unread[0]! : Buffer.concat(unread, this.unreadBytes);
    this.unread = [];
    this.unreadBytes = 0;
    if (!this.ended && this.message.isPaused()) this.message.resume();
    return { done: false, value };
  }

  releaseLock(): void {}

  async cancel(): Promise<void> {
    this.message.destroy();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.settle();
  }

  /** Answers a waiting `read()` once the message has ended or failed. */
  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    if (this.failure) waiting.reject(this.failure);
    else waiting.resolve(DONE);
  }
}
