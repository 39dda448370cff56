/**
 * What a Chat Completions provider needs of `fetch` for its upstream calls. The global `fetch` is one
 * (on every runtime); the Node entry's `nodeFetch` is another that answers without web `Response`,
 * `Headers` and `ReadableStream` objects, which cost Node 20 more than the rest of a gateway turn.
 */
export type UpstreamFetch = (url: string, init: UpstreamRequestInit) => Promise<UpstreamResponse>;

export interface UpstreamRequestInit {
  method?: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
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
