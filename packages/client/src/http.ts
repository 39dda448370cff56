import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  errorFromResponse,
  type OpenResponsesError,
} from './errors.js';

export interface TransportOptions {
  baseURL: string;
  apiKey?: string;
  fetch: typeof fetch;
  headers: Record<string, string>;
  /** Retries after the first attempt, for 429, 5xx and network failures (default 2). */
  maxRetries: number;
  /** The first backoff in ms; doubles each retry, with full jitter (default 500). */
  retryBaseMs: number;
  /** The longest wait, also the cap for Retry-After (default 30 s). */
  retryMaxMs: number;
  /** How long one attempt may take until its answer's headers, in ms (default 10 minutes, as openai-node). */
  timeoutMs: number;
}

/** Per-request options, the last argument of every endpoint method. */
export interface RequestOptions {
  /** Aborts the request (an `APIUserAbortError`, never retried). */
  signal?: AbortSignal;
  /** Headers for this request, over the client's. */
  headers?: Record<string, string>;
  /** This request's `timeout` in ms per attempt (an `APIConnectionTimeoutError`, retried like a lost connection). */
  timeout?: number;
}

/** Sends a request, retrying what can be retried (never a 4xx other than 408/429), honouring Retry-After. */
export async function send(
  transport: TransportOptions,
  method: string,
  path: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<{ response: Response; release(): void }> {
  const url = `${transport.baseURL.replace(/\/+$/, '')}${path}`;
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    ...transport.headers,
    ...options.headers,
  };
  if (transport.apiKey) headers.authorization = `Bearer ${transport.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const timeoutMs = options.timeout ?? transport.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    let failure: OpenResponsesError;
    const attemptSignal = abortable(options.signal, timeoutMs);
    try {
      const response = await transport.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: attemptSignal.signal,
      });
      if (response.ok) {
        // The body is read later: the caller's signal keeps aborting it until the caller releases it.
        attemptSignal.clearTimeout();
        return { response, release: attemptSignal.release };
      }
      failure = await errorFromResponse(response);
      attemptSignal.release();
    } catch (error) {
      if (options.signal?.aborted) throw new APIUserAbortError({ cause: options.signal.reason ?? error });
      failure = attemptSignal.timedOut()
        ? new APIConnectionTimeoutError(timeoutMs, { cause: error })
        : new APIConnectionError(`Request to ${url} failed: ${withCauses(error)}`, { cause: error });
      attemptSignal.release();
    }
    if (!failure.retryable || attempt >= transport.maxRetries) throw failure;
    try {
      await sleep(delayFor(transport, attempt, failure.headers), options.signal);
    } catch (reason) {
      throw new APIUserAbortError({ cause: reason });
    }
  }
}

/**
 * A signal for one attempt: aborted by the caller's signal or after `timeoutMs` until its headers arrive.
 * `release()` removes the timer and the listener on the caller's signal.
 */
function abortable(outer: AbortSignal | undefined, timeoutMs: number) {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clearTimeout: () => clearTimeout(timer),
    release: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

function delayFor(transport: TransportOptions, attempt: number, headers?: Headers): number {
  const retryAfter = headers?.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, transport.retryMaxMs);
  }
  // Exponential backoff with full jitter.
  return Math.random() * Math.min(transport.retryMaxMs, transport.retryBaseMs * 2 ** attempt);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * An error's message with its causes' (`fetch failed: connect ECONNREFUSED 127.0.0.1:8080`): undici's own
 * message says only "fetch failed", the reason is in `cause` (several for a refused dual-stack host).
 */
export function withCauses(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number) => {
    if (!(value instanceof Error) || seen.has(value) || depth > 4) return;
    seen.add(value);
    if (value.message && !parts.includes(value.message)) parts.push(value.message);
    if (value instanceof AggregateError) for (const inner of value.errors.slice(0, 3)) visit(inner, depth + 1);
    visit(value.cause, depth + 1);
  };
  visit(error, 0);
  return parts.length > 0 ? parts.join(': ') : String(error);
}
