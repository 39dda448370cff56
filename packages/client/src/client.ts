import { decodeSSE } from '@openresponses/events';
import type {
  CompactResource,
  CompactResponseMethodPublicBody,
  CreateResponseBody,
  ItemField,
  ResponseResource,
} from '@openresponses/types';
import { LATEST_SPEC_VERSION, type SpecVersion } from '@openresponses/types';
import type { Registry } from '@openresponses/extensions';
import { APIConnectionError, APIUserAbortError, InvalidPayloadError, OpenResponsesError } from './errors.js';
import { send, type RequestOptions, type TransportOptions } from './http.js';
import { type ClientResponse, withOutputText } from './output-text.js';
import { normalizeBatches, ResponseStream, type EventPolicy } from './stream.js';
import { checkerFor } from './validators.js';
import { connectSession, type ConnectOptions, type ResponsesSession } from './websocket.js';

/** What `createClient` takes. */
export interface ClientOptions {
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (default: the `OPENRESPONSES_BASE_URL` environment variable). */
  baseURL?: string;
  /** Sent as `Authorization: Bearer <apiKey>` (default: the `OPENRESPONSES_API_KEY` environment variable). */
  apiKey?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The spec version to speak (sent as `OpenResponses-Version`; default: the latest). */
  specVersion?: SpecVersion;
  /** How server payloads are validated (default `forward`: unknown item and event types pass intact). */
  validate?: EventPolicy['validate'];
  /** `lenient` accepts known peer variants (`response.reasoning_text.*`, missing sequence numbers, missing `[DONE]`). */
  profile?: EventPolicy['profile'];
  /** Retries after a retryable failure (429, 5xx, a lost connection, a timeout); default 2. */
  maxRetries?: number;
  /** The first retry's backoff ceiling in ms (doubling each retry, full jitter); default 500. */
  retryBaseMs?: number;
  /** The longest wait between retries in ms, `Retry-After` included; default 30,000. */
  retryMaxMs?: number;
  /** Default per-attempt timeout in ms until the answer's headers (default 10 minutes); `RequestOptions.timeout` overrides it. */
  timeout?: number;
  /** Vendor extensions: payloads validate with the registry's extended schemas and streams fold its vendor events. */
  registry?: Registry;
}

/** A create request as the client sends it: the spec body, `stream` set by the method used. */
export type CreateBody = Omit<CreateResponseBody, 'stream'> & {
  /** `true` streams the answer (a `ResponseStream`); otherwise the whole `ResponseResource`. */
  stream?: boolean | null;
};

/** `client.responses`: the spec's `/responses` endpoints. */
export interface Responses {
  /** Creates a response; with `stream: true` the answer is a `ResponseStream`, otherwise the `ResponseResource`. */
  create(body: CreateBody & { stream: true }, options?: RequestOptions): Promise<ResponseStream>;
  /** Creates a response and answers it whole. */
  create(body: CreateBody & { stream?: false | null }, options?: RequestOptions): Promise<ClientResponse>;
  /** Creates a response: a `ResponseStream` when `body.stream` is true, otherwise the `ResponseResource`. */
  create(body: CreateBody, options?: RequestOptions): Promise<ClientResponse | ResponseStream>;
  /** Streams a response: events, listeners, `textStream()`, `finalResponse()`; `options.signal` cancels. */
  stream(body: Omit<CreateBody, 'stream'>, options?: RequestOptions): Promise<ResponseStream>;
  /** Compacts a conversation (`POST /responses/compact`) into a window to continue from. */
  compact(body: CompactResponseMethodPublicBody, options?: RequestOptions): Promise<CompactResource>;
  /** Fetches a stored response (`GET /responses/{id}`). */
  retrieve(id: string, options?: RequestOptions): Promise<ClientResponse>;
  /** Deletes a stored response (`DELETE /responses/{id}`). */
  delete(
    id: string,
    options?: RequestOptions,
  ): Promise<{
    /** The deleted response's id. */
    id: string;
    /** `response.deleted`. */
    object: string;
    /** `true`. */
    deleted: boolean;
  }>;
  /** The input items of a stored response (`GET /responses/{id}/input_items`). */
  inputItems(
    id: string,
    options?: RequestOptions,
  ): Promise<{
    /** `list`. */
    object: 'list';
    /** The input items, in order. */
    data: ItemField[];
    /** The first item's id. */
    first_id: string | null;
    /** The last item's id. */
    last_id: string | null;
    /** Whether more items follow. */
    has_more: boolean;
  }>;
  /** Opens a WebSocket session on `/responses` for sequential turns (pass `WebSocket` from `ws` on Node 20). */
  connect(options?: ConnectOptions): Promise<ResponsesSession>;
}

/** What `createClient` returns. */
export interface OpenResponsesClient {
  /** The `/responses` endpoints. */
  readonly responses: Responses;
  /** The options in effect, defaults filled in. */
  readonly options: Readonly<Required<Pick<ClientOptions, 'baseURL' | 'specVersion' | 'validate' | 'profile'>>>;
}

/** A typed Open Responses client on web-standard APIs (fetch, streams, WebSocket). */
export function createClient(options: ClientOptions = {}): OpenResponsesClient {
  const baseURL = options.baseURL ?? environmentVariable('OPENRESPONSES_BASE_URL');
  if (baseURL === undefined)
    throw new OpenResponsesError(
      'createClient needs the API root: pass { baseURL: "http://127.0.0.1:8080/v1" } or set OPENRESPONSES_BASE_URL.',
      0,
      'invalid_options',
      null,
      'baseURL',
    );
  if (!URL.canParse(baseURL) || !/^https?:$/.test(new URL(baseURL).protocol))
    throw new OpenResponsesError(
      `createClient: baseURL ${JSON.stringify(baseURL)} is not an http(s) URL such as http://127.0.0.1:8080/v1.`,
      0,
      'invalid_options',
      null,
      'baseURL',
    );
  const version = options.specVersion ?? LATEST_SPEC_VERSION;
  const policy: EventPolicy = {
    version,
    validate: options.validate ?? 'forward',
    profile: options.profile ?? 'spec',
    registry: options.registry,
  };
  const transport: TransportOptions = {
    baseURL,
    apiKey: options.apiKey ?? environmentVariable('OPENRESPONSES_API_KEY'),
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    headers: { 'openresponses-version': version, ...options.headers },
    maxRetries: options.maxRetries ?? 2,
    retryBaseMs: options.retryBaseMs ?? 500,
    retryMaxMs: options.retryMaxMs ?? 30_000,
    timeoutMs: options.timeout ?? 10 * 60 * 1000,
  };
  const checked = <T>(what: string, payload: 'ResponseResource' | 'CompactResource', value: unknown): T => {
    const check = checkerFor(payload, version, policy.validate, options.registry);
    if (!check) return value as T;
    const result = check(value);
    if (!result.success) throw new InvalidPayloadError(what, result.issues);
    return value as T;
  };

  const stream = async (
    body: Omit<CreateBody, 'stream'>,
    requestOptions: RequestOptions = {},
  ): Promise<ResponseStream> => {
    // The stream's own controller follows the caller's signal until the stream ends (it aborts the
    // controller when it does), and then lets go of the caller's signal.
    const controller = new AbortController();
    const outer = requestOptions.signal;
    const follow = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener('abort', follow, { once: true });
    controller.signal.addEventListener('abort', () => outer?.removeEventListener('abort', follow), { once: true });
    let sent: Awaited<ReturnType<typeof send>>;
    try {
      sent = await send(
        transport,
        'POST',
        '/responses',
        { ...body, stream: true },
        { ...requestOptions, signal: controller.signal },
      );
    } catch (error) {
      controller.abort(error);
      throw error;
    }
    const { response, release } = sent;
    controller.signal.addEventListener('abort', release, { once: true });
    if (!response.body) throw new InvalidPayloadError('The streamed response', [{ path: '', message: 'no body' }]);
    const events = decodeSSE(response.body, { profile: policy.profile });
    return new ResponseStream(
      { batches: () => normalizeBatches(events.batches(), policy) },
      controller,
      options.registry?.createAccumulator(),
    );
  };

  const getJson = async (method: string, path: string, body?: unknown, requestOptions?: RequestOptions) => {
    const { response, release } = await send(transport, method, path, body, requestOptions);
    try {
      return await response.json();
    } catch (error) {
      if (requestOptions?.signal?.aborted) throw new APIUserAbortError({ cause: error });
      throw new APIConnectionError(`Reading the answer failed: ${(error as Error).message}`, { cause: error });
    } finally {
      release();
    }
  };

  const responses: Responses = {
    create: (async (body: CreateBody, requestOptions?: RequestOptions) => {
      if (body.stream) return stream(body, requestOptions);
      return withOutputText(
        checked<ResponseResource>(
          'The response',
          'ResponseResource',
          await getJson('POST', '/responses', body, requestOptions),
        ),
      );
    }) as Responses['create'],
    stream,
    compact: async (body, requestOptions) =>
      checked<CompactResource>(
        'The compacted response',
        'CompactResource',
        await getJson('POST', '/responses/compact', body, requestOptions),
      ),
    retrieve: async (id, requestOptions) =>
      withOutputText(
        checked<ResponseResource>(
          'The response',
          'ResponseResource',
          await getJson('GET', `/responses/${encodeURIComponent(id)}`, undefined, requestOptions),
        ),
      ),
    delete: async (id, requestOptions) =>
      (await getJson('DELETE', `/responses/${encodeURIComponent(id)}`, undefined, requestOptions)) as {
        id: string;
        object: string;
        deleted: boolean;
      },
    inputItems: async (id, requestOptions) =>
      (await getJson('GET', `/responses/${encodeURIComponent(id)}/input_items`, undefined, requestOptions)) as Awaited<
        ReturnType<Responses['inputItems']>
      >,
    connect: (connectOptions = {}) =>
      connectSession({ transport, policy, compact: (body) => responses.compact(body) }, connectOptions),
  };
  return {
    responses,
    options: { baseURL, specVersion: version, validate: policy.validate, profile: policy.profile },
  };
}

/** A non-empty environment variable where there is an environment (Node, Deno, Bun); never in a browser. */
function environmentVariable(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  return value?.trim() ? value.trim() : undefined;
}
