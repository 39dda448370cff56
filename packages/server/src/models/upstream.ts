import { ResponsesError } from '../errors.js';
import { type UpstreamLimits, upstreamLimitsOf } from '../limits.js';
import { credentialHeaderValues, Redactor } from '../redaction.js';

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
  /** The request headers (a call's `traceparent` among them). */
  readonly headers: Record<string, string>;
  /**
   * A traced call's W3C `traceparent` kept apart, with `untracedHeaders`: a fetch that keeps work per headers
   * object adds it itself (`nodeFetch`).
   */
  readonly traceparent?: string;
  /** `headers` without `traceparent`: the provider's own object, the same every call. */
  readonly untracedHeaders?: Record<string, string>;
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
}

/** A cancellation to follow (`Cancellation` is one). */
export interface UpstreamAbort {
  /** Whether it was cancelled. */
  readonly cancelled: boolean;
  /** Calls `listener` once when cancelled; returns what stops listening. */
  onCancel(listener: () => void): () => void;
}

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

/** How a provider reaches its upstream: the bounds of each call, the fetch, the redactor of its secrets. */
export interface UpstreamConnection {
  /** The bounds of every call (`timeoutMs` applied as the idle bound). */
  readonly limits: UpstreamLimits;
  /** The fetch (`UpstreamCall` makes each call a client span while the turn is traced). */
  readonly fetch: UpstreamFetch;
  /** Removes the key (and the credential headers) from everything an upstream says. */
  readonly redactor: Redactor;
}

/**
 * The connection a provider built from `options` and its `apiKey` calls its upstream with. Throws when the
 * key or a header value holds a character no HTTP header can carry (a non-ASCII `…` pasted from a guide, a
 * space, a line break): every family builds its connection here, so such a key fails when the server starts,
 * not as an opaque error on every request.
 */
export function upstreamConnection(options: UpstreamProviderOptions, apiKey: string | undefined): UpstreamConnection {
  // An empty key means none (a local upstream such as Ollama), as the families read it.
  if (apiKey) checkSendable(apiKey, 'the API key', /^[\x21-\x7e]+$/);
  for (const [name, value] of Object.entries(options.headers ?? {}))
    checkSendable(value, `the header '${name}'`, /^[\t\x20-\x7e]*$/);
  const limits = upstreamLimitsOf(options.limits);
  if (options.timeoutMs !== undefined) limits.upstreamIdleMs = options.timeoutMs;
  return {
    limits,
    // Called as a plain function: a runtime's fetch may refuse another `this`.
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    redactor: new Redactor([apiKey, ...credentialHeaderValues(options.headers)]),
  };
}

/** Throws naming the first character of `value` outside `allowed` (by code point and position, never the value). */
function checkSendable(value: string, what: string, allowed: RegExp): void {
  if (allowed.test(value)) return;
  const at = [...value].findIndex((character) => !allowed.test(character));
  const character = [...value][at] ?? '';
  throw new Error(
    `${what} holds a character that cannot be sent in an HTTP header (U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at position ${at + 1}); keys are printable ASCII without spaces.`,
  );
}

/** An upstream refused the gateway's own key (401/403): the operator's mistake, never the client's; the key is not shown. */
export function upstreamCredentialsRefused(status: number | undefined): ResponsesError {
  return new ResponsesError(
    'server_error',
    'upstream_authentication_failed',
    `The upstream provider refused the gateway's credentials (HTTP ${status}); the gateway's configuration needs fixing.`,
  );
}

/** An upstream does not know the model (404): a 400 naming `model`, with the upstream's (redacted) message. */
export function upstreamModelUnknown(message: string): ResponsesError {
  return new ResponsesError(
    'invalid_request',
    'model_not_found',
    `The upstream provider does not know this model (HTTP 404): ${message}`,
    'model',
    400,
  );
}
