/**
 * What a provider (of any family) needs of `fetch` for its upstream calls. The global `fetch` is one
 * (on every runtime); the Node entry's `nodeFetch` is another that answers without web `Response`,
 * `Headers` and `ReadableStream` objects, which cost Node 20 more than the rest of a gateway turn.
 */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<UpstreamResponse>;

export interface UpstreamRequestInit {
  method?: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, and the body while it is read. */
  readonly signal?: AbortSignal;
  /**
   * The same abort for a fetch that can follow it without an AbortSignal (`nodeFetch` does): the provider
   * makes `signal` only when it is read (each AbortSignal costs Node 20 several µs, and more to collect).
   */
  readonly abort?: UpstreamAbort;
}

/** A cancellation to follow (`Cancellation` is one). */
export interface UpstreamAbort {
  readonly cancelled: boolean;
  /** Calls `listener` once when cancelled; returns what stops listening. */
  onCancel(listener: () => void): () => void;
}

/** The part of a web `Response` a provider reads. */
export interface UpstreamResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** The body as it arrives (read only when streaming; `text()`/`json()` otherwise). */
  readonly body: { getReader(): UpstreamBodyReader } | null;
}

export interface UpstreamBodyReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  releaseLock(): void;
}
