import { errorFromResponse, OpenResponsesError } from './errors.js';

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
}

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Sends a request, retrying what can be retried (never a 4xx other than 408/429), honouring Retry-After. */
export async function send(
  transport: TransportOptions,
  method: string,
  path: string,
  body: unknown,
  options: RequestOptions = {},
): Promise<Response> {
  const url = `${transport.baseURL.replace(/\/+$/, '')}${path}`;
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    ...transport.headers,
    ...options.headers,
  };
  if (transport.apiKey) headers.authorization = `Bearer ${transport.apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 0; ; attempt++) {
    let failure: OpenResponsesError;
    try {
      const response = await transport.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal,
      });
      if (response.ok) return response;
      failure = await errorFromResponse(response);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      failure = new OpenResponsesError(
        `Request to ${url} failed: ${(error as Error).message}`,
        0,
        'connection_error',
        null,
        null,
      );
    }
    if (!failure.retryable || attempt >= transport.maxRetries) throw failure;
    await sleep(delayFor(transport, attempt, failure.headers), options.signal);
  }
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
