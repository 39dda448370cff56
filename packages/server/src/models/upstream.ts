import type { Context } from '@opentelemetry/api';
import { type UpstreamLimits, upstreamLimitsOf } from '../limits.js';
import { credentialHeaderValues, Redactor } from '../redaction.js';
import { endClientSpan, startClientSpan, withTraceHeaders, within } from '../telemetry/tracing.js';

/**
 * What a provider (of any family) needs of `fetch` for its upstream calls. The global `fetch` is one
 * (on every runtime); the Node entry's `nodeFetch` is another that answers without web `Response`,
 * `Headers` and `ReadableStream` objects, which cost Node 20 more than the rest of a gateway turn.
 */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<UpstreamResponse>;

/** What a provider passes to its `UpstreamFetch`: the part of `RequestInit` providers use, and the read bound. */
export interface UpstreamRequestInit {
  /** The HTTP method (default `GET`). */
  method?: string;
  /** The request headers. */
  headers: Record<string, string>;
  /** The request body (JSON text). */
  body?: string;
  /** Aborts the request, and the body while it is read. */
  readonly signal?: AbortSignal;
  /**
   * The same abort for a fetch that can follow it without an AbortSignal (`nodeFetch` does): the provider
   * makes `signal` only when it is read (each AbortSignal costs Node 20 several µs, and more to collect).
   */
  readonly abort?: UpstreamAbort;
  /**
   * The most bytes `text()` and `json()` may read (a fetch that can bound them does; `nodeFetch` fails past
   * it). Providers read bodies through `UpstreamCall` (models/upstream-call.ts), which bounds every read.
   */
  readonly maxBodyBytes?: number;
  /** The OpenTelemetry context of the turn's span: the call's client span is its child (`UpstreamCall` passes it). */
  readonly traceContext?: Context;
}

/** A cancellation to follow (`Cancellation` is one). */
export interface UpstreamAbort {
  /** Whether it was cancelled. */
  readonly cancelled: boolean;
  /** Calls `listener` once when cancelled; returns what stops listening. */
  onCancel(listener: () => void): () => void;
}

/** The part of a web `Response` a provider reads. */
/** What an `UpstreamFetch` answers: the part of `Response` providers use. */
export interface UpstreamResponse {
  /** Whether the status is 2xx. */
  readonly ok: boolean;
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: {
    /** A header's value, or null. */
    get(name: string): string | null;
  };
  /** The whole body as text. */
  text(): Promise<string>;
  /** The whole body, parsed as JSON. */
  json(): Promise<unknown>;
  /** The body as it arrives (read only when streaming; `text()`/`json()` otherwise). */
  readonly body: {
    /** A reader of the body's bytes. */
    getReader(): UpstreamBodyReader;
  } | null;
}

/** Reads an upstream body chunk by chunk, as a web stream reader does. */
export interface UpstreamBodyReader {
  /** The next chunk, or `done`. */
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  /** Lets go of the body without reading the rest. */
  releaseLock(): void;
  /** Stops reading and drops the connection (a web stream reader has it; `nodeFetch` destroys the answer). */
  cancel?(reason?: unknown): Promise<void>;
}

/**
 * `fetch` with a client span per upstream call (a child of `init.traceContext`, the turn's span; `POST` with the HTTP client
 * conventions' attributes, ended when the answer has been read), the trace context sent upstream as W3C
 * `traceparent`. Without a current trace it is `fetch` itself, called as it is.
 */
export function tracedUpstreamFetch(fetch: UpstreamFetch): UpstreamFetch {
  return async (url, init) => {
    const scope = startClientSpan(init.method ?? 'GET', url, init.traceContext);
    if (!scope) return fetch(url, init);
    const span = scope.span;
    let ended = false;
    const end = (status: number | undefined, error?: unknown) => {
      if (ended) return;
      ended = true;
      endClientSpan(span, status, error);
    };
    // A new init: the provider's headers object is shared between its calls.
    const traced: UpstreamRequestInit = {
      method: init.method,
      headers: withTraceHeaders(scope, init.headers),
      body: init.body,
      abort: init.abort,
      maxBodyBytes: init.maxBodyBytes,
      get signal() {
        return init.signal;
      },
    };
    const stopListening = init.abort?.onCancel(() => end(undefined, new Error('cancelled')));
    let response: UpstreamResponse;
    try {
      response = await within(scope, () => fetch(url, traced));
    } catch (error) {
      stopListening?.();
      end(undefined, error);
      throw error;
    }
    const status = response.status;
    const done = <T>(read: Promise<T>) =>
      read.then(
        (value) => {
          stopListening?.();
          end(status);
          return value;
        },
        (error: unknown) => {
          end(status, error);
          throw error;
        },
      );
    const body = response.body;
    return {
      ok: response.ok,
      status,
      headers: response.headers,
      text: () => done(response.text()),
      json: () => done(response.json()),
      body: body && {
        getReader: () => {
          const reader = body.getReader();
          return {
            read: async () => {
              try {
                const result = await reader.read();
                if (result.done) {
                  stopListening?.();
                  end(status);
                }
                return result;
              } catch (error) {
                end(status, error);
                throw error;
              }
            },
            releaseLock: () => {
              end(status);
              reader.releaseLock();
            },
            cancel: async (reason?: unknown) => {
              end(status);
              await reader.cancel?.(reason);
            },
          };
        },
      },
    };
  };
}

/** The options of every provider family that calls an HTTP upstream (each family's options add their own). */
export interface UpstreamProviderOptions {
  /** Name shown in logs and `GET /v1/models` (`owned_by`); default the family's route type. */
  name?: string;
  /**
   * How long to wait for the upstream's answer to start, and then between two events (default
   * `limits.upstreamIdleMs`, 300 s; keep-alive comments do not count).
   */
  timeoutMs?: number;
  /** The bounds of every upstream call (`ServerLimits`' upstream fields; defaults for those not given). */
  limits?: Partial<UpstreamLimits>;
  /**
   * Tokens of context the upstream model takes, for `truncation: "auto"` (default 128,000 for Chat
   * Completions, 200,000 for Anthropic Messages).
   */
  contextWindow?: number;
  /** How long the upstream's model list is kept (default 10 minutes). */
  modelListTtlMs?: number;
  /** Extra headers for every upstream request. */
  headers?: Record<string, string>;
  /** The fetch to use (default the global one; on Node, `nodeFetch` from `@openresponses/server/node` costs less). */
  fetch?: UpstreamFetch;
}

/** How a provider reaches its upstream: the bounds of each call, the traced fetch, the redactor of its secrets. */
export interface UpstreamConnection {
  /** The bounds of every call (`timeoutMs` applied as the idle bound). */
  readonly limits: UpstreamLimits;
  /** The fetch, traced (a client span per call when a trace is current). */
  readonly fetch: UpstreamFetch;
  /** Removes the key (and the credential headers) from everything an upstream says. */
  readonly redactor: Redactor;
}

/** The connection a provider built from `options` and its `apiKey` calls its upstream with. */
export function upstreamConnection(options: UpstreamProviderOptions, apiKey: string | undefined): UpstreamConnection {
  const limits = upstreamLimitsOf(options.limits);
  if (options.timeoutMs !== undefined) limits.upstreamIdleMs = options.timeoutMs;
  return {
    limits,
    // Called as a plain function: a runtime's fetch may refuse another `this`.
    fetch: tracedUpstreamFetch(options.fetch ?? ((url, init) => globalThis.fetch(url, init))),
    redactor: new Redactor([apiKey, ...credentialHeaderValues(options.headers)]),
  };
}
