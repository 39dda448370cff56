// OTLP export requests: POST these bytes to this URL with these headers, within this time, with the SDK's
// retries; sent, or failed with the reason. `otlpRequests` makes them on the calling thread (the own span
// export does); `OtlpPoster` makes them in a worker thread of its own, so that a collector's node:http exchange
// (its sockets, streams, parser and timers) never runs in the turns' isolate. Measured for the span export
// (node/otlp-span-export.ts' header): there the worker spends more than it saves the turns' thread.
// The worker runs `otlpRequests` and `answerInWorker` from their source text (`eval`), so the same module serves
// the built package and its sources (vitest, tsx) without a file to resolve (Node 20 runs no .ts worker entry).
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import { type MessagePort, Worker } from 'node:worker_threads';

/** One export request: where, what and how long it may take, its retries included. */
export interface OtlpPost {
  /** The OTLP endpoint (`…/v1/traces`, `…/v1/metrics`). */
  url: URL;
  /** Headers sent besides content-type and content-length. */
  headers: Readonly<Record<string, string>>;
  /**
   * The request body. A buffer it fills whole is moved to the worker (unusable here) until the answer hands it
   * back; a view into a larger buffer is copied.
   */
  body: Uint8Array;
  /** The whole exchange, retries included, in ms. */
  timeoutMs: number;
}

/** How an export request ended. */
export interface OtlpPostAnswer {
  /** Why it failed (the collector's status, a network error, no answer in time, the worker gone); undefined when sent. */
  failure?: string;
  /** The body, handed back for reuse; undefined when the worker stopped with it. */
  body?: Uint8Array;
}

/** One request as `otlpRequests` takes it (the URL as text: it is what crosses to the worker). */
export interface OtlpRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: Uint8Array;
  /** The whole exchange, retries included, in ms. */
  timeoutMs: number;
}

/** Requests made on the thread that made them (`otlpRequests`). */
export interface OtlpRequests {
  /** Sends `request.body`, again after a retryable failure while its timeout allows; rejects with the last failure. */
  send(request: OtlpRequest): Promise<void>;
  /** Closes its keep-alive connections. */
  close(): void;
}

/** What the worker is sent: a request with its id (its body's buffer transferred). */
interface PostMessage extends OtlpRequest {
  id: number;
}
/** What the worker answers. */
interface AnswerMessage {
  id: number;
  failure?: string;
  body: Uint8Array;
}

/** How long past a request's own timeout the worker may take to answer before it is stopped as hung. */
const WORKER_GRACE_MS = 2000;

/**
 * OTLP POSTs made with `http` and `https` (node:http, node:https) on this thread, one keep-alive connection a
 * collector. It holds everything it uses (the worker runs it from its source text): its modules come as arguments.
 */
export function otlpRequests(http: typeof Http, https: typeof Https): OtlpRequests {
  /** Bytes of a collector's answer read at most (its body is not used). */
  const MAX_ANSWER_BYTES = 64 * 1024;
  // Retries, as the SDK's OTLP exporter makes them (@opentelemetry/otlp-exporter-base's retrying transport): at
  // most 5 after the first try, the pause 1 s growing 1.5x to at most 5 s, ±20% jitter, a collector's
  // Retry-After in its place; none that would end past the export's timeout.
  const MAX_RETRIES = 5;
  const FIRST_PAUSE_MS = 1000;
  const MAX_PAUSE_MS = 5000;
  const PAUSE_GROWTH = 1.5;
  const JITTER = 0.2;
  /** Answers a collector gives when it may take the request later. */
  const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
  /** Network failures worth another try (the SDK's list). */
  const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'ETIMEDOUT',
    'EAI_AGAIN',
    'ENOTFOUND',
    'ENETUNREACH',
    'EHOSTUNREACH',
  ]);

  /** A request that failed: what the collector answered, if it did, and when it asked to be tried again. */
  interface ExportFailure extends Error {
    /** The request never reached the collector (its reused keep-alive connection was closed under it). */
    unsent?: boolean;
    /** The collector's HTTP status. */
    status?: number;
    /** The collector's Retry-After, in ms. */
    retryAfterMs?: number;
    /** A network error's code (`ECONNREFUSED`, …). */
    code?: string;
  }

  /** A Retry-After value in ms (seconds, or an HTTP date), as the SDK reads it; undefined when absent or unreadable. */
  const retryAfterMsOf = (header: string | undefined): number | undefined => {
    if (header === undefined) return undefined;
    const seconds = Number.parseInt(header, 10);
    if (Number.isInteger(seconds)) return Math.max(0, seconds * 1000);
    const at = Date.parse(header);
    return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
  };

  /** How long to wait before trying `failure` again (`pause`: the backoff's turn), or undefined when it is not worth one. */
  const retryDelayOf = (failure: ExportFailure, pause: number): number | undefined => {
    const retryable =
      failure.status !== undefined
        ? RETRYABLE_STATUSES.has(failure.status)
        : failure.code !== undefined && RETRYABLE_NETWORK_CODES.has(failure.code);
    if (!retryable) return undefined;
    return failure.retryAfterMs ?? Math.min(pause * (1 + (Math.random() * 2 - 1) * JITTER), MAX_PAUSE_MS);
  };

  /** One keep-alive connection for each collector (origin). */
  const agents = new Map<string, Http.Agent>();
  const agentOf = (url: URL): Http.Agent => {
    let agent = agents.get(url.origin);
    if (agent === undefined) {
      const options = { keepAlive: true, maxSockets: 1 };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
      agents.set(url.origin, agent);
    }
    return agent;
  };

  /**
   * What `http.request` is given: the options as node/http-fetch.ts gives them, headers a flat list (`host`
   * unless given, the exporter's, then content-type and content-length; names count case-insensitively, the last
   * one winning). On the turns' thread Node's http client then sees one shape from the upstream calls and the
   * span export, not two that keep its ICs polymorphic: the stored gateway JSON turn with spans and metrics
   * -3.1 µs of 53.7 by process CPU (five alternated rounds), -2.3k to -3.3k instructions (callgrind, two pairs).
   * A URL with credentials, or an `expect` header, which only Node's object path handles, keeps that path.
   */
  const requestOptions = (url: URL, headers: OtlpRequest['headers'], length: number): Http.RequestOptions | URL => {
    const byName = new Map<string, [string, string]>([['host', ['host', url.host]]]);
    for (const name of Object.keys(headers)) byName.set(name.toLowerCase(), [name, headers[name]!]);
    if (url.username !== '' || url.password !== '' || byName.has('expect')) return url;
    byName.set('content-type', ['content-type', 'application/x-protobuf']);
    byName.set('content-length', ['content-length', String(length)]);
    return {
      protocol: url.protocol,
      // `[::1]` is written with brackets in a URL, without them as a host to connect to.
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      path: url.pathname + url.search,
      method: 'POST',
      headers: [...byName.values()].flat(),
      agent: agentOf(url),
    };
  };

  /** One POST of `body`, settled when a 2xx answer has been read (bounded) or rejected within `timeLeftMs`. */
  const post = (url: URL, headers: OtlpRequest['headers'], body: Uint8Array, timeLeftMs: number): Promise<void> => {
    const timeoutMs = Math.max(1, Math.round(timeLeftMs));
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise<void>((resolve, reject) => {
      let answered = false;
      const settle = (error?: Error) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const onAnswer = (answer: Http.IncomingMessage) => {
        answered = true;
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) exchange.destroy(new Error(`an answer over ${MAX_ANSWER_BYTES} bytes`));
        });
        answer.on('error', settle);
        answer.on('close', () => {
          if (!answer.complete) settle(new Error('the connection closed before the answer ended'));
        });
        answer.on('end', () => {
          const status = answer.statusCode ?? 0;
          if (status >= 200 && status < 300) return settle();
          const failure: ExportFailure = new Error(`HTTP ${status}`);
          failure.status = status;
          failure.retryAfterMs = retryAfterMsOf(answer.headers['retry-after']);
          settle(failure);
        });
      };
      const options = requestOptions(url, headers, body.length);
      const exchange =
        options instanceof URL
          ? send(
              options,
              {
                method: 'POST',
                agent: agentOf(url),
                headers: { ...headers, 'content-type': 'application/x-protobuf', 'content-length': body.length },
              },
              onAnswer,
            )
          : send(options, onAnswer);
      const timer = setTimeout(() => {
        const late = new Error(`no answer within ${timeoutMs} ms`);
        exchange.destroy(late);
        settle(late);
      }, timeoutMs);
      // A request's socket holds the process open, its timer does not (nor a pause between tries, below).
      timer.unref();
      exchange.on('error', (error: ExportFailure) => {
        error.unsent = exchange.reusedSocket && !answered;
        settle(error);
      });
      exchange.end(body);
    });
  };

  /**
   * Sends `body`, trying again after a retryable failure (see MAX_RETRIES) while the timeout allows; rejects
   * with the last failure.
   */
  const send = async (request: OtlpRequest): Promise<void> => {
    const url = new URL(request.url);
    const deadline = performance.now() + request.timeoutMs;
    let pause = FIRST_PAUSE_MS;
    for (let retries = 0; ; retries++) {
      try {
        // A collector may close an idle keep-alive connection just as it is reused (Node's servers do after 5 s):
        // that request never reached it, so it goes once more at once, on a new connection.
        await post(url, request.headers, request.body, deadline - performance.now()).catch((error: ExportFailure) => {
          if (!error.unsent) throw error;
          return post(url, request.headers, request.body, deadline - performance.now());
        });
        return;
      } catch (error) {
        const wait = retries < MAX_RETRIES ? retryDelayOf(error as ExportFailure, pause) : undefined;
        if (wait === undefined || wait >= deadline - performance.now()) throw error;
        pause *= PAUSE_GROWTH;
        await new Promise<void>((resolve) => setTimeout(resolve, wait).unref());
      }
    }
  };

  const close = (): void => {
    for (const agent of agents.values()) agent.destroy();
    agents.clear();
  };
  return { send, close };
}

/** The worker's loop, from its source text: each request sent with `requests`, answered with its body handed back. */
function answerInWorker(requests: OtlpRequests, port: MessagePort): void {
  port.on('message', async (request: PostMessage) => {
    let failure: string | undefined;
    try {
      await requests.send(request);
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    const answer: AnswerMessage = { id: request.id, failure, body: request.body };
    port.postMessage(answer, [request.body.buffer as ArrayBuffer]);
  });
}

/**
 * The worker's program: `answerInWorker` over `otlpRequests`, from their source text. esbuild with keepNames
 * (tsx, the CLI from its sources) wraps the named functions of that text in `__name` calls: a no-op stands in.
 */
const WORKER_SOURCE = `const __name = (target) => target;
const { parentPort } = require('node:worker_threads');
const requests = (${otlpRequests.toString()})(require('node:http'), require('node:https'));
(${answerInWorker.toString()})(requests, parentPort);`;

/** A request waiting for the worker's answer. */
interface Pending {
  settle(answer: OtlpPostAnswer): void;
  guard: ReturnType<typeof setTimeout>;
}

/**
 * Makes OTLP export requests in a worker thread of its own, started at the first request or by `startEarly` (and
 * again after one stopped). The worker holds the process open only while a request is in flight (as a request's
 * socket would); a worker that fails to start, stops, or outlives a request's timeout by WORKER_GRACE_MS fails the
 * requests it held, and the next request starts a new one. `post` never rejects.
 */
export class OtlpPoster {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private closed = false;

  /** POSTs `request.body` (its buffer moved to the worker until answered); settles with how it ended. */
  post({ url, headers, body, timeoutMs }: OtlpPost): Promise<OtlpPostAnswer> {
    if (this.closed) return Promise.resolve({ failure: 'the export was shut down', body });
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (error) {
      return Promise.resolve({ failure: `the export worker did not start (${(error as Error).message})`, body });
    }
    const id = ++this.lastId;
    return new Promise<OtlpPostAnswer>((resolve) => {
      const guard = setTimeout(() => {
        void this.stop(worker, `no answer from the export worker within ${timeoutMs + WORKER_GRACE_MS} ms`);
      }, timeoutMs + WORKER_GRACE_MS);
      guard.unref();
      this.pending.set(id, { settle: resolve, guard });
      worker.ref();
      const message: PostMessage = { id, url: url.href, headers, body, timeoutMs };
      // Only a buffer the body owns whole moves: a view into a larger one (a pooled Buffer, which Node 22 and
      // later refuse to transfer, or a batch's buffer) is copied, so the sender's other bytes stay readable.
      const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
      try {
        worker.postMessage(message, owned ? [body.buffer as ArrayBuffer] : []);
      } catch (error) {
        this.pending.delete(id);
        clearTimeout(guard);
        if (this.pending.size === 0) worker.unref();
        resolve({ failure: `the request could not reach the export worker (${(error as Error).message})`, body });
      }
    });
  }

  /**
   * Starts the worker now rather than at the first request (a failure to start is left to that request): what
   * starting it runs in this isolate then deoptimises nothing the turns have optimised since.
   */
  startEarly(): void {
    if (this.closed || this.worker) return;
    try {
      this.start();
    } catch {}
  }

  /** Stops the worker; requests in flight fail. Later requests fail at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.worker) await this.stop(this.worker, 'the export was shut down');
  }

  private start(): Worker {
    // None of this process's Node options: they may load code (--import, --require) a bare HTTP client has no use for.
    // Its stdout and stderr are not piped into the process's (it writes to neither: failures come back as answers
    // or 'error'): piping them ran Node's stream and event functions (Readable on/read/resume/flow, addListener)
    // on the worker's stdio streams, which deoptimised the turns' own uses of them at the first export and cost a
    // streamed gateway turn 8-11k instructions from then on (callgrind).
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], stdout: true, stderr: true });
    worker.unref();
    worker.on('message', (answer: AnswerMessage) => {
      const pending = this.pending.get(answer.id);
      if (pending === undefined) return;
      this.pending.delete(answer.id);
      clearTimeout(pending.guard);
      if (this.pending.size === 0) worker.unref();
      pending.settle({ failure: answer.failure, body: answer.body });
    });
    // An uncaught error in the worker ends it: 'exit' follows and fails what it held.
    worker.on('error', (error) => this.failAll(worker, `the export worker failed (${error.message})`));
    worker.on('exit', (code) => this.failAll(worker, `the export worker stopped (exit code ${code})`));
    this.worker = worker;
    return worker;
  }

  /** Terminates `worker`, failing what it held with `reason`. */
  private async stop(worker: Worker, reason: string): Promise<void> {
    this.failAll(worker, reason);
    await worker.terminate();
  }

  /** Fails every request in flight with `reason` (all are `worker`'s), and forgets `worker` so the next request starts another. */
  private failAll(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    worker.unref();
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      clearTimeout(pending.guard);
      pending.settle({ failure: reason });
    }
  }
}
