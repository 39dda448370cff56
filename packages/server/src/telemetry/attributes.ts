// The names the server's telemetry reports under, shared by its spans (tracing.ts), its metrics (metrics.ts)
// and its request log. HTTP names are the stable entry of @opentelemetry/semantic-conventions; the
// GenAI names are still incubating there, and the package asks libraries to copy incubating names rather
// than import its `/incubating` entry (which may break in a minor version), so they are copied here from
// semantic-conventions 1.45.0 (GenAI conventions).
import type { Attributes } from '@opentelemetry/api';

// The stable HTTP names, copied from @opentelemetry/semantic-conventions 1.45 too: the package is 9.4 MB
// installed, half of what the server weighs without it (test/attributes-names.test.ts keeps them equal).
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
export const ATTR_HTTP_REQUEST_METHOD_ORIGINAL = 'http.request.method_original';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
export const ATTR_HTTP_ROUTE = 'http.route';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_SERVER_ADDRESS = 'server.address';
export const ATTR_SERVER_PORT = 'server.port';
export const ATTR_URL_FULL = 'url.full';
export const ATTR_URL_PATH = 'url.path';
export const ATTR_URL_SCHEME = 'url.scheme';
export const METRIC_HTTP_CLIENT_REQUEST_DURATION = 'http.client.request.duration';
export const METRIC_HTTP_SERVER_REQUEST_DURATION = 'http.server.request.duration';
/** The server's own time for a turn request (total minus upstream waits), beside its `openresponses-overhead-duration-ms` header. */
export const METRIC_OPENRESPONSES_OVERHEAD_DURATION = 'openresponses.server.overhead.duration';

/** The methods the HTTP conventions name; `httpMethodOf` reports any other as `_OTHER`. */
const KNOWN_HTTP_METHODS: ReadonlySet<string> = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

let lastMethod = '';
let lastReported = '_OTHER';
/**
 * `http.request.method` of a request: its method when the conventions name it, else `_OTHER` (a client
 * sending made-up methods to `service.fetch` cannot add label values or span names). The last method's is
 * kept: requests in a row mostly share one, and a request asks for it twice (its span's name, its metrics),
 * a set lookup each before, even when its trace is sampled out.
 */
export const httpMethodOf = (method: string): string => {
  if (method !== lastMethod) {
    lastMethod = method;
    lastReported = KNOWN_HTTP_METHODS.has(method) ? method : '_OTHER';
  }
  return lastReported;
};

/**
 * Attribute sets by key, made once and frozen, for metric records and span starts: the SDK copies or hashes
 * them anyway, but a request then allocates none. Bounded (a set past it is made but not kept), since model
 * names come from clients.
 */
const attributeSets = new Map<string, Attributes>();
const MAX_ATTRIBUTE_SETS = 2000;
export function attributeSet(key: string, make: () => Attributes): Attributes {
  let set = attributeSets.get(key);
  if (set === undefined) {
    set = Object.freeze(make());
    if (attributeSets.size < MAX_ATTRIBUTE_SETS) attributeSets.set(key, set);
  }
  return set;
}

/**
 * Attribute sets by up to four parts (a provider, a model, …), made once and frozen, like `attributeSet` but
 * found through nested maps by the parts themselves: no key string is built and hashed per lookup (a metric
 * value's labels are looked up several times a turn). Bounded as `attributeSet` is. `T`: an attribute set, or
 * an object holding one with what else is made once with it (a span's name). `make` is given the parts: a
 * function made once that reads them, not a closure made at every lookup (with the context it captures, each
 * found set cost an allocation).
 */
export class AttributeSets<T extends object = Attributes> {
  private readonly root = new Map<unknown, Map<unknown, Map<unknown, Map<unknown, T>>>>();
  private size = 0;
  /** The parts last asked for and their set (kept ones only): most lookups ask for the same again. */
  private last: { a: unknown; b: unknown; c: unknown; d: unknown; set: T } | undefined;

  get<A, B, C, D>(a: A, b: B, c: C, d: D, make: (a: A, b: B, c: C, d: D) => T): T {
    const last = this.last;
    if (last !== undefined && last.a === a && last.b === b && last.c === c && last.d === d) return last.set;
    const found = this.root.get(a)?.get(b)?.get(c)?.get(d);
    if (found !== undefined) {
      this.last = { a, b, c, d, set: found };
      return found;
    }
    const set = Object.freeze(make(a, b, c, d));
    // Past the bound a set is made each time and nothing is kept, not even the maps on its way.
    if (this.size < MAX_ATTRIBUTE_SETS) {
      let byB = this.root.get(a);
      if (byB === undefined) this.root.set(a, (byB = new Map()));
      let byC = byB.get(b);
      if (byC === undefined) byB.set(b, (byC = new Map()));
      let byD = byC.get(c);
      if (byD === undefined) byC.set(c, (byD = new Map()));
      byD.set(d, set);
      this.size++;
      this.last = { a, b, c, d, set };
    }
    return set;
  }
}

/** The longest model name or error code reported as it is (see `reportedName`). */
export const MAX_REPORTED_NAME_LENGTH = 256;

/**
 * A model name or error code as telemetry reports it: itself, or `_OTHER` past `MAX_REPORTED_NAME_LENGTH`
 * characters. Clients choose model names (a catch-all gateway route takes any) and upstreams choose error
 * codes: neither may make span names, label values or the metric SDK's series grow without bound.
 */
export const reportedName = (name: string): string => (name.length <= MAX_REPORTED_NAME_LENGTH ? name : '_OTHER');

/** The tracer and meter name (the instrumentation scope): the package. */
export const INSTRUMENTATION_SCOPE = '@openresponses/server';

// GenAI span and metric attributes.
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/**
 * The turn's `previous_response_id`: the GenAI conventions' `gen_ai.conversation.id` names a conversation
 * resource, which Open Responses has none of; a chain of turns is linked by this id to `gen_ai.response.id`.
 */
export const ATTR_OPENRESPONSES_PREVIOUS_RESPONSE_ID = 'openresponses.previous_response_id';
/** The `gen_ai.client.token.usage` metric's token kind (`input` or `output`). */
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
// Content: recorded only when capture is opted in (see `TelemetryOptions.captureMessageContent`).
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';

/** `gen_ai.operation.name` of a Responses turn (the conventions' name for chat-style generation). */
export const GEN_AI_OPERATION_CHAT = 'chat';

/** `gen_ai.provider.name` values the server's provider families report (the conventions' well-known names where one fits). */
export const GEN_AI_PROVIDERS = {
  /** OpenAI and every OpenAI-compatible Chat Completions upstream (Ollama, vLLM, llama.cpp…). */
  openai: 'openai',
  anthropic: 'anthropic',
  /** The Gemini API (Vertex AI would be `gcp.vertex_ai`). */
  gemini: 'gcp.gemini',
  /** The embedded deterministic model and scenario files: this server answers itself. */
  openresponses: 'openresponses',
} as const;

/** `gen_ai.token.type` values. */
export const GEN_AI_TOKEN_TYPES = { input: 'input', output: 'output' } as const;

// GenAI metric names (units in their descriptions; buckets as the conventions recommend, in metrics.ts).
export const METRIC_GEN_AI_SERVER_REQUEST_DURATION = 'gen_ai.server.request.duration';
export const METRIC_GEN_AI_SERVER_TIME_TO_FIRST_TOKEN = 'gen_ai.server.time_to_first_token';
export const METRIC_GEN_AI_SERVER_TIME_PER_OUTPUT_TOKEN = 'gen_ai.server.time_per_output_token';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';

/**
 * A failed turn as the request log tells it: the spec error the client got (or the one its failed response
 * carries) and the provider that served it. The message has been through the serving provider's redactor
 * (its upstream keys and the common secret shapes), whole, before anything cuts it.
 */
export interface TurnFailure {
  /** The spec error `type` (`server_error`, `model_error`, `too_many_requests`…). */
  type: string;
  /** The spec error `code` (`upstream_unavailable`, `upstream_authentication_failed`…). */
  code: string;
  /** The error's HTTP status (a streamed failure's too, although its stream was answered 200). */
  status: number;
  /** The error's message, secrets redacted. */
  message: string;
  /** The name of the provider (route) that served the turn, when one did. */
  provider?: string;
}

/**
 * What a turn tells telemetry about itself once it has ended: the GenAI span's attributes, the GenAI
 * metrics' labels and values, and the request log's model and tokens. Filled by the turn instrumentation
 * (service/), read by anything that reports per turn.
 */
export interface TurnFacts {
  /** `gen_ai.request.model`: the model the request named (or the server's default). */
  requestModel?: string;
  /** `gen_ai.provider.name` of the provider that served it. */
  provider?: string;
  /** The upstream that answered, when a fallback route chose among several (the `openresponses-upstream` header). */
  upstream?: string;
  /** `openresponses.previous_response_id`: the turn it continues. */
  previousResponseId?: string;
  /** `gen_ai.response.model`. */
  responseModel?: string;
  /** `gen_ai.response.id`. */
  responseId?: string;
  /** `gen_ai.usage.input_tokens`. */
  inputTokens?: number;
  /** `gen_ai.usage.output_tokens`. */
  outputTokens?: number;
  /** `error.type`: the failure's code (`model_error`, `rate_limit_exceeded`…), when the turn failed. */
  errorType?: string;
  /** How the turn failed, when it did (before or after its first event), for the request log. */
  failure?: TurnFailure;
  /** Headers the turn's admission adds to its HTTP answer (`x-ratelimit-*-tokens`). */
  headers?: Record<string, string>;
  /**
   * Milliseconds the turn's upstream calls kept it waiting, each from sending its request to its whole answer
   * (JSON) or its first events (a stream), or to its failure; the rest of the request's time is the server's own.
   */
  upstreamMs?: number;
}

/** A server span's name and starting attributes (`startServerSpan`, ./tracing.ts). */
export interface ServerStart {
  readonly name: string;
  readonly attributes: Attributes;
}

/** A server span's name before its route is known: its method, `HTTP` for one the conventions do not name. */
export const httpSpanName = (method: string): string => {
  const known = httpMethodOf(method);
  return known === '_OTHER' ? 'HTTP' : known;
};

/**
 * A server span's name (its method, `HTTP` for one the conventions do not name) and attributes (`_OTHER` and
 * the original for such a method) for an HTTP request, made once per method and path: a server sees a few
 * paths again and again.
 */
export const httpServerStart = (method: string, path: string): ServerStart =>
  serverSets.get(method, path, undefined, undefined, serverStartOf);
const serverStartOf = (method: string, path: string): ServerStart => {
  const known = httpMethodOf(method);
  const attributes: Attributes = { [ATTR_HTTP_REQUEST_METHOD]: known, [ATTR_URL_PATH]: path };
  if (known !== method) attributes[ATTR_HTTP_REQUEST_METHOD_ORIGINAL] = method;
  return { name: httpSpanName(method), attributes: Object.freeze(attributes) };
};
const serverSets = new AttributeSets<ServerStart>();
