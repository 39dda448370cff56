import { invalidRequest, ResponsesError } from './errors.js';

/**
 * Every budget the server enforces against what a client sends or makes it hold, in one place. The
 * defaults are safe for a server on the open internet and generous for real clients; each is a
 * spec-shaped 4xx (or 429) when exceeded, never a crash. The server README lists them.
 */
export interface ServerLimits {
  /** Largest HTTP request body and WebSocket message, in bytes (16 MiB: above the spec's 10 MiB input strings). */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a request body (128). */
  maxJsonDepth: number;
  /** Largest `instructions`, in UTF-8 bytes (1 MiB; the spec gives no limit). */
  maxInstructionsBytes: number;
  /** Most items in one request's `input` (20,000). */
  maxInputItems: number;
  /** Most tools in one request (256). */
  maxTools: number;
  /** Largest JSON Schema of one tool (`parameters`), in bytes of JSON (64 KiB). */
  maxToolSchemaBytes: number;
  /** Deepest nesting of one tool's JSON Schema (32). */
  maxToolSchemaDepth: number;
  /** Largest output of one response: the text, arguments and items a model produces, in bytes (4 MiB). */
  maxOutputBytes: number;
  /**
   * Most function calls a model may start in one response, dropped ones (past `max_tool_calls`) included (1,024);
   * past it the response ends `incomplete` as at `maxOutputBytes`.
   */
  maxToolCallsPerResponse: number;
  /** Longest a background turn may run, in ms (10 minutes); then it stops and is stored `failed` (`background_deadline`). */
  maxBackgroundTurnMs: number;
  /** Turns running at once over the whole server, HTTP and WebSocket (256); more are a 429. */
  maxTurnsInFlight: number;
  /** Turns running at once for one API key (or for everyone, on an open server), HTTP and WebSocket (32); more are a 429. */
  maxTurnsInFlightPerKey: number;
  /** WebSocket connections open at once over the whole server (1,024); more are refused with a 429. */
  maxWebSocketConnections: number;
  /** WebSocket connections open at once for one API key (or for everyone, on an open server) (64); more are a 429. */
  maxWebSocketConnectionsPerKey: number;
  /**
   * Bytes all WebSocket connections together keep as connection-local state (their responses, kept for
   * continuation on the connection; the only copy of `store: false` ones) (64 MiB); past it the least
   * recently used go, and continuing from one of those is `previous_response_not_found`.
   */
  maxWebSocketStateBytes: number;
  /** Requests per second per API key (a token bucket); 0 turns rate limiting off (the default). */
  rateLimitPerSecond: number;
  /** Requests a key may make at once before the rate applies (the bucket's size; default: one second's worth). */
  rateLimitBurst: number;
  /** Bytes a client may leave unread in a stream before its turn pauses (1 MiB). */
  writeHighWaterBytes: number;
  /** How long a paused stream waits for its client to read before the server ends it, in ms (30 s). */
  stalledWriteMs: number;
  /**
   * Largest upstream body read whole (a JSON answer, an error body, a model list), in bytes (32 MiB); past it
   * the upstream connection is dropped and the turn fails with `upstream_response_too_large`.
   */
  maxUpstreamBodyBytes: number;
  /** Largest line, and largest event, of an upstream stream, in bytes (16 MiB); past it `upstream_event_too_large`. */
  maxUpstreamEventBytes: number;
  /**
   * Most bytes one upstream stream may send in all (64 MiB): whatever a family holds while a turn runs (open
   * blocks, signatures, argument fragments of a call without a name) is bounded by it; past it the connection is
   * dropped and the turn fails with `upstream_response_too_large`.
   */
  maxUpstreamStreamBytes: number;
  /**
   * How long an upstream call waits for its answer to start, then between two events of a stream (or two chunks
   * of a body), in ms (5 min; a route's `timeoutMs` overrides it). SSE comments (keep-alives) do not count.
   */
  upstreamIdleMs: number;
  /** Longest one upstream call may take from request to last byte, in ms (15 min); then `upstream_deadline_exceeded`. */
  upstreamDeadlineMs: number;
  /** Most model names one provider lists on `GET /v1/models` (10,000); the rest are left out. */
  maxUpstreamModels: number;
  /**
   * Deepest nesting of arrays and objects in any JSON an upstream sends (a body, an event, tool input) (128);
   * past it the turn fails with `upstream_too_deep` before anything parses it.
   */
  maxUpstreamJsonDepth: number;
}

/** Every budget's default (see the limits reference). */
export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxBodyBytes: 16 * 1024 * 1024,
  maxJsonDepth: 128,
  maxInstructionsBytes: 1024 * 1024,
  maxInputItems: 20_000,
  maxTools: 256,
  maxToolSchemaBytes: 64 * 1024,
  maxToolSchemaDepth: 32,
  maxOutputBytes: 4 * 1024 * 1024,
  maxToolCallsPerResponse: 1024,
  maxBackgroundTurnMs: 10 * 60_000,
  maxTurnsInFlight: 256,
  maxTurnsInFlightPerKey: 32,
  maxWebSocketConnections: 1024,
  maxWebSocketConnectionsPerKey: 64,
  maxWebSocketStateBytes: 64 * 1024 * 1024,
  rateLimitPerSecond: 0,
  rateLimitBurst: 0,
  writeHighWaterBytes: 1024 * 1024,
  stalledWriteMs: 30_000,
  maxUpstreamBodyBytes: 32 * 1024 * 1024,
  maxUpstreamEventBytes: 16 * 1024 * 1024,
  maxUpstreamStreamBytes: 64 * 1024 * 1024,
  upstreamIdleMs: 300_000,
  upstreamDeadlineMs: 15 * 60_000,
  maxUpstreamModels: 10_000,
  maxUpstreamJsonDepth: 128,
});

/** The limits every upstream call reads through (models/upstream-call.ts). */
export type UpstreamLimits = Pick<
  ServerLimits,
  | 'maxUpstreamBodyBytes'
  | 'maxUpstreamEventBytes'
  | 'maxUpstreamStreamBytes'
  | 'upstreamIdleMs'
  | 'upstreamDeadlineMs'
  | 'maxUpstreamModels'
  | 'maxUpstreamJsonDepth'
>;

/** The upstream limits of `limits` (the defaults for those not given). */
export function upstreamLimitsOf(limits: Partial<ServerLimits> = {}): UpstreamLimits {
  return {
    maxUpstreamBodyBytes: limits.maxUpstreamBodyBytes ?? DEFAULT_LIMITS.maxUpstreamBodyBytes,
    maxUpstreamEventBytes: limits.maxUpstreamEventBytes ?? DEFAULT_LIMITS.maxUpstreamEventBytes,
    maxUpstreamStreamBytes: limits.maxUpstreamStreamBytes ?? DEFAULT_LIMITS.maxUpstreamStreamBytes,
    upstreamIdleMs: limits.upstreamIdleMs ?? DEFAULT_LIMITS.upstreamIdleMs,
    upstreamDeadlineMs: limits.upstreamDeadlineMs ?? DEFAULT_LIMITS.upstreamDeadlineMs,
    maxUpstreamModels: limits.maxUpstreamModels ?? DEFAULT_LIMITS.maxUpstreamModels,
    maxUpstreamJsonDepth: limits.maxUpstreamJsonDepth ?? DEFAULT_LIMITS.maxUpstreamJsonDepth,
  };
}

/** The defaults with `overrides` applied; a negative or non-numeric limit is a configuration error. */
export function resolveLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  // A spread, not `Object.assign({}, …)`: V8 copies the defaults' 26 fields at their fixed shape, where the assign
  // left a dictionary, read by a generic load at every limit a turn checks (readBody's, the stream's).
  const limits: ServerLimits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(overrides))
    if (value !== undefined) limits[name as keyof ServerLimits] = value;
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw new TypeError(`limits.${name} must be a non-negative finite number, got ${String(value)}.`);
  }
  if (limits.rateLimitBurst === 0) limits.rateLimitBurst = Math.max(1, Math.ceil(limits.rateLimitPerSecond));
  return limits;
}

/** Environment variables the Node CLI reads into limits (`OPENRESPONSES_MAX_BODY_BYTES=…`, …). */
export function limitsFromEnv(env: Record<string, string | undefined>): Partial<ServerLimits> {
  const out: Partial<ServerLimits> = {};
  for (const name of Object.keys(DEFAULT_LIMITS) as Array<keyof ServerLimits>) {
    const value = env[`OPENRESPONSES_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`];
    if (value !== undefined && value.trim() !== '') out[name] = Number(value);
  }
  return out;
}

/** Exact UTF-8 length of a string. */
export const utf8Length = (text: string) => {
  // Text of 32 to 4,096 units that is all ASCII (what a model's deltas mostly are) is checked by `encodeInto`,
  // native and vectorised (84 units: 202 -> 66 ns); it wrote one byte a unit exactly when every unit is ASCII.
  // Anything else is counted without encoding (a 10 MiB string would otherwise be copied once more).
  if (text.length >= 32 && text.length <= ASCII_SCRATCH.length) {
    const { read, written } = ASCII_ENCODER.encodeInto(text, ASCII_SCRATCH);
    if (read === text.length && written === read) return written;
  }
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
};
const ASCII_ENCODER = new TextEncoder();
const ASCII_SCRATCH = new Uint8Array(4096);

/**
 * The deepest nesting of arrays and objects in JSON text, scanning at most until `limit` is passed
 * (strings are skipped, escapes honoured). Linear and allocation-free, so it runs before `JSON.parse`
 * and before anything recursive (`JSON.stringify`, validators) sees the value. Strings, most of a large
 * body's bytes, are skipped with `indexOf` (a vectorised search) rather than a character at a time: a
 * 1 MiB input took ~10 ms here, longer than its `JSON.parse` (bench/server.bench.ts).
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  // JSON nested deeper than the limit opens and closes limit + 1 containers: shorter text is not (or is not
  // JSON, which JSON.parse says). This skips the scan for most streamed chunks (~150-250 characters).
  if (text.length < 2 * limit + 2) return false;
  // No deeper than the count of '{' and '[' (in strings too): counted with indexOf, which is many times
  // faster than the scan below, that only text with more openers than the limit needs.
  let openers = 0;
  for (let i = text.indexOf('{'); i >= 0 && openers <= limit; i = text.indexOf('{', i + 1)) openers++;
  for (let i = text.indexOf('['); i >= 0 && openers <= limit; i = text.indexOf('[', i + 1)) openers++;
  if (openers <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 /* " */) {
      i = closingQuote(text, i);
      if (i < 0) return false; // unterminated: not JSON, which JSON.parse says
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends: the next `"` after an even run of backslashes; -1 if none. */
function closingQuote(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * Whether a parsed value nests arrays and objects deeper than `limit`, walking its containers level by level
 * (a recursive walk is what deep input breaks; one array per level, nothing per primitive). On a parsed 1 MiB
 * input this costs a third of `jsonDepthExceeds` on its text (0.12 against 0.39 ms), as few containers
 * hold most bytes; a value of tiny containers only costs it more (200,000 empty arrays: 15 ms against 4 ms).
 */
export function depthExceeds(value: unknown, limit: number): boolean {
  let level: object[] = value !== null && typeof value === 'object' ? [value] : [];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > limit) return true;
    const next: object[] = [];
    for (const node of level) {
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const child: unknown = node[i];
          if (child !== null && typeof child === 'object') next.push(child);
        }
      } else
        for (const key in node) {
          const child: unknown = (node as Record<string, unknown>)[key];
          if (child !== null && typeof child === 'object') next.push(child);
        }
    }
    level = next;
  }
  return false;
}

/** The 400 for a request's JSON (`what`) nested deeper than `maxJsonDepth`. */
export const nestedTooDeep = (what: string, limits: Pick<ServerLimits, 'maxJsonDepth'>, param: string | null = null) =>
  invalidRequest(
    'nesting_too_deep',
    `${what} nests arrays and objects more than ${limits.maxJsonDepth} levels deep.`,
    param,
  );

/** Refuses JSON text nested deeper than the limit, before it is parsed. */
export function checkJsonDepth(
  text: string,
  limits: Pick<ServerLimits, 'maxJsonDepth'>,
  what = 'The request body',
  param: string | null = null,
): void {
  if (jsonDepthExceeds(text, limits.maxJsonDepth)) throw nestedTooDeep(what, limits, param);
}

/**
 * JSON from an upstream (a body, an event, a tool's input), bounded in size and depth before it is parsed:
 * the one parse every provider family reads upstream JSON through. Deeper than `maxUpstreamJsonDepth` is a
 * `model_error` `upstream_too_deep` (never a stack overflow later); longer than `maxUpstreamBodyBytes`,
 * `upstream_response_too_large`. Text that is not JSON throws the `SyntaxError` of `JSON.parse` (each family
 * says what it was reading).
 */
export function parseUpstreamJson(
  text: string,
  limits: Pick<ServerLimits, 'maxUpstreamJsonDepth' | 'maxUpstreamBodyBytes'>,
): unknown {
  // UTF-16 units: at most the UTF-8 bytes; a bounded reader already held the bytes under the same limit.
  if (text.length > limits.maxUpstreamBodyBytes)
    throw new ResponsesError(
      'model_error',
      'upstream_response_too_large',
      `The upstream sent JSON larger than this server's limit of ${limits.maxUpstreamBodyBytes} bytes.`,
    );
  if (jsonDepthExceeds(text, limits.maxUpstreamJsonDepth))
    throw new ResponsesError(
      'model_error',
      'upstream_too_deep',
      `The upstream sent JSON nested more than ${limits.maxUpstreamJsonDepth} levels deep (this server's limit); it was not parsed.`,
    );
  return JSON.parse(text);
}

/**
 * The per-field budgets of a create request that the spec leaves open: `instructions`, input item
 * count, tool count and each tool's schema size and depth. Runs on the raw body, before validation.
 */
export function checkRequestBudgets(body: unknown, limits: ServerLimits): void {
  if (!body || typeof body !== 'object') return;
  const { instructions, input, tools } = body as { instructions?: unknown; input?: unknown; tools?: unknown };
  if (typeof instructions === 'string' && utf8Length(instructions) > limits.maxInstructionsBytes)
    throw invalidRequest(
      'string_above_max_length',
      `instructions is longer than this server's limit of ${limits.maxInstructionsBytes} bytes.`,
      'instructions',
    );
  if (Array.isArray(input) && input.length > limits.maxInputItems)
    throw invalidRequest(
      'array_above_max_length',
      `input has ${input.length} items, more than this server's limit of ${limits.maxInputItems}.`,
      'input',
    );
  if (!Array.isArray(tools)) return;
  if (tools.length > limits.maxTools)
    throw invalidRequest(
      'array_above_max_length',
      `tools has ${tools.length} entries, more than this server's limit of ${limits.maxTools}.`,
      'tools',
    );
  for (const [index, tool] of tools.entries()) {
    const schema = (tool as { parameters?: unknown } | null)?.parameters;
    if (schema === null || typeof schema !== 'object') continue;
    const param = `tools[${index}].parameters`;
    if (depthExceeds(schema, limits.maxToolSchemaDepth))
      throw invalidRequest(
        'schema_too_deep',
        `${param} nests more than ${limits.maxToolSchemaDepth} levels deep.`,
        param,
      );
    if (utf8Length(JSON.stringify(schema)) > limits.maxToolSchemaBytes)
      throw invalidRequest(
        'schema_too_large',
        `${param} is larger than this server's limit of ${limits.maxToolSchemaBytes} bytes.`,
        param,
      );
  }
}

/** 429 for a budget of concurrent work or of rate, with how long to wait (whole seconds, at least 1). */
export function tooManyRequests(code: string, message: string, retryAfterSeconds: number): ResponsesError {
  return new ResponsesError('too_many_requests', code, message, null, 429, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}
