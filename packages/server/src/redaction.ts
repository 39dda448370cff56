// What crosses from an upstream to a client (error messages, `param`, headers passed on, recorded files,
// log lines) goes through one redactor first: it knows the configured upstream keys and the common shapes
// of secrets, and it runs before anything is cut to length, so no prefix of a key survives a truncation.
// Upstream values copied into an error are checked here too: strings only, bounded, `Retry-After` parsed
// and clamped.
import { ResponsesError } from './errors.js';

/** The shortest run of a configured key that is removed wherever it appears (a key's prefix or suffix too). */
export const MIN_SECRET_RUN = 8;
/** What a removed secret reads as. */
export const REDACTED = '[redacted]';
/** The most characters of an upstream message a client is shown. */
export const MAX_UPSTREAM_MESSAGE_CHARS = 500;
/** The longest Retry-After passed on, in seconds (an upstream asking for more is asking for an hour). */
export const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * Common secret shapes, whatever key the route has: bearer tokens, OpenAI (`sk-…`, `sk-proj-…`) and
 * Anthropic (`sk-ant-…`) keys, `x-api-key`/`api-key` pairs, AWS access key ids, Google API keys, GitHub
 * tokens, JWTs, the password of a URL. A shape keeps its label (`Bearer [redacted]`) so the message still says what was there.
 */
const SECRET_SHAPES: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  // Not after a letter or digit (`risk-assessment-…` is prose), but after `_` (`token_sk-…`), which `\b` misses.
  [/(?<![A-Za-z0-9])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b((?:x-)?api[-_]?key["']?\s*[:=]\s*["']?)[^\s"',;]{8,}/gi, `$1${REDACTED}`],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}/g, REDACTED],
  // URL userinfo (`user:pass@`, or a bare token `ghp_…@`) and credential query parameters (`?token=`, `&api_key=`, …).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@?#]+@/gi, `$1${REDACTED}@`],
  [
    /([?&](?:[a-z0-9_-]*(?:token|key|secret|password|passwd|pwd|auth|signature|credential)[a-z0-9_-]*|sig|code)=)[^&#\s"'<>]+/gi,
    `$1${REDACTED}`,
  ],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/** A `\u` escape of a character keys are written with (letters, digits, `-_.+/=:~`). */
const KEY_CHARACTER_ESCAPE = /\\u(00(?:2[bdef]|3[0-9ad]|[46][1-9a-f]|[57][0-9a]|5f|7e))/gi;

/**
 * Removes secrets from text: every run of `MIN_SECRET_RUN` or more characters of a configured key
 * (the whole key, a prefix, a suffix, any piece), then the common secret shapes. Keys shorter than
 * `MIN_SECRET_RUN` are removed only whole.
 */
export class Redactor {
  /** Every `MIN_SECRET_RUN`-character window of every key: where a run of a key can start. */
  private readonly windows = new Set<string>();
  private readonly keys: string[];
  private readonly shortKeys: string[];

  constructor(secrets: Iterable<string | null | undefined> = []) {
    const keys = new Set<string>();
    for (const secret of secrets) if (typeof secret === 'string' && secret.trim().length >= 4) keys.add(secret.trim());
    this.keys = [...keys].filter((key) => key.length >= MIN_SECRET_RUN);
    this.shortKeys = [...keys].filter((key) => key.length < MIN_SECRET_RUN);
    for (const key of this.keys)
      for (let at = 0; at + MIN_SECRET_RUN <= key.length; at++) this.windows.add(key.slice(at, at + MIN_SECRET_RUN));
  }

  /** A redactor that also knows `secrets`. */
  with(secrets: Iterable<string | null | undefined>): Redactor {
    return new Redactor([...this.keys, ...this.shortKeys, ...secrets]);
  }

  /**
   * `text` without secrets. A secret written with JSON `\u` escapes (`sk-\u0061…`) is seen too: when the
   * text holds such escapes of letters, digits or `-_.+/=`, it is also read with them decoded, and when that
   * reading held a secret, the decoded reading, redacted, is what is returned (otherwise the text is kept as
   * written, so content that merely mentions an escape is not rewritten).
   */
  redact(text: string): string {
    const redacted = this.redactAsWritten(text);
    if (!text.includes('\\u')) return redacted;
    const decoded = text.replace(KEY_CHARACTER_ESCAPE, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (decoded === text) return redacted;
    const decodedRedacted = this.redactAsWritten(decoded);
    return decodedRedacted === decoded ? redacted : decodedRedacted;
  }

  private redactAsWritten(text: string): string {
    let out = this.windows.size > 0 ? this.removeRuns(text) : text;
    for (const key of this.shortKeys) out = out.split(key).join(REDACTED);
    for (const [shape, replacement] of SECRET_SHAPES) out = out.replace(shape, replacement);
    return out;
  }

  /**
   * An upstream value shown to a client: a string (anything else is `fallback`), redacted, then cut to
   * `max` characters. Redaction runs first, so the cut cannot leave a piece of a key behind.
   */
  text(value: unknown, max = MAX_UPSTREAM_MESSAGE_CHARS, fallback = ''): string {
    if (typeof value !== 'string') return fallback;
    // A bounded window first (a hostile body can be megabytes): wide enough that a key cut at its edge is
    // still a run the redactor removes, and the final cut below happens after redaction.
    const redacted = this.redact(value.length > max * 2 + 1024 ? value.slice(0, max * 2 + 1024) : value);
    return redacted.length > max ? `${redacted.slice(0, max)}…` : redacted;
  }

  /**
   * An upstream `param` (the request field an error is about): a short path such as `messages.1.content`,
   * or null. Anything else (an object, a long value, a value that held a secret) is dropped.
   */
  param(value: unknown): string | null {
    if (typeof value !== 'string' || value.length === 0 || value.length > 128) return null;
    if (!/^[A-Za-z0-9_.[\]-]+$/.test(value)) return null;
    return this.redact(value) === value ? value : null;
  }

  /**
   * A provider's error with its message redacted and bounded (it may quote an upstream), its `param`
   * checked; type, code, status and headers are the gateway's own and stay.
   */
  error(error: ResponsesError): ResponsesError {
    const message = this.text(error.message, MAX_UPSTREAM_MESSAGE_CHARS * 2);
    const param = error.param === null ? null : this.param(error.param);
    if (message === error.message && param === error.param) return error;
    return new ResponsesError(error.type, error.code, message, param, error.status, {
      headers: error.headers,
      cause: error.cause,
    });
  }

  /** A copy of a JSON value with every string redacted (what a recording writes); `first` runs before this redactor. */
  value<T>(value: T, first?: (text: string) => string): T {
    return redactValue(value, first ? (text) => this.redact(first(text)) : (text) => this.redact(text)) as T;
  }

  private removeRuns(text: string): string {
    let out = '';
    let copied = 0;
    for (let at = 0; at + MIN_SECRET_RUN <= text.length; ) {
      if (!this.windows.has(text.slice(at, at + MIN_SECRET_RUN))) {
        at++;
        continue;
      }
      // Extend the run as long as it is still a piece of some key.
      let end = at + MIN_SECRET_RUN;
      while (end < text.length && this.keys.some((key) => key.includes(text.slice(at, end + 1)))) end++;
      out += `${text.slice(copied, at)}${REDACTED}`;
      copied = at = end;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }
}

function redactValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((entry) => redactValue(entry, redact));
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(value)) copy[name] = redactValue(entry, redact);
    return copy;
  }
  return value;
}

/**
 * What went wrong, in words: an error's message and its causes' (`fetch failed: connect ECONNREFUSED …`),
 * never its class name. Redact before showing it.
 */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    const message = current instanceof Error ? current.message : typeof current === 'string' ? current : '';
    if (message && !parts.includes(message)) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ') || 'no reason given';
}

/** The header values of a route that are credentials (`authorization`, `x-api-key`, `…-token`, `…-secret`). */
export function credentialHeaderValues(headers: Readonly<Record<string, string>> | undefined): string[] {
  if (!headers) return [];
  return Object.entries(headers).flatMap(([name, value]) => {
    if (!/auth|key|token|secret|cookie/i.test(name)) return [];
    // `Bearer <token>`: the token is the secret.
    const token = /^\s*(?:Bearer|Basic)\s+(.+)$/i.exec(value)?.[1];
    return [token ?? value];
  });
}

/**
 * The retry headers of an upstream's answer as a client may see them: `retry-after` (delay seconds or an
 * HTTP date) as whole seconds and `retry-after-ms` as whole milliseconds, each clamped to
 * 0..`MAX_RETRY_AFTER_SECONDS`; an invalid, negative or oversized-and-unreadable value is dropped.
 */
export function upstreamRetryHeaders(
  headers: { get(name: string): string | null },
  now = Date.now(),
): Record<string, string> {
  const out: Record<string, string> = {};
  const seconds = retryAfterSeconds(headers.get('retry-after'), now);
  if (seconds !== undefined) out['retry-after'] = String(seconds);
  const ms = delayOf(headers.get('retry-after-ms'));
  if (ms !== undefined) out['retry-after-ms'] = String(Math.min(Math.ceil(ms), MAX_RETRY_AFTER_SECONDS * 1000));
  return out;
}

/** `Retry-After` as whole seconds within 0..MAX_RETRY_AFTER_SECONDS, or undefined when it is not one. */
export function retryAfterSeconds(value: string | null | undefined, now = Date.now()): number | undefined {
  const delay = delayOf(value);
  if (delay !== undefined) return Math.min(Math.ceil(delay), MAX_RETRY_AFTER_SECONDS);
  const text = value?.trim();
  // An HTTP date is about 29 characters; a long value is not one.
  if (!text || text.length > 64 || !/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

/** A non-negative decimal number (a huge one reads as Infinity, which the caller clamps), else undefined. */
function delayOf(value: string | null | undefined): number | undefined {
  const text = value?.trim();
  if (!text || !/^\d+(?:\.\d+)?$/.test(text)) return undefined;
  const number = Number(text);
  return Number.isNaN(number) ? undefined : number;
}

/** Redacts the common secret shapes only (no configured keys): URLs and messages the CLI prints about its own settings. */
const SHAPES_ONLY = new Redactor();
export const redactSecretShapes = (text: string): string => SHAPES_ONLY.redact(text);

/**
 * Control characters, line and paragraph separators, and the bidirectional formatting characters (U+202E
 * "right-to-left override" and its kin, Trojan Source): a line a client helped write must not hide or
 * reorder what a reader of a log or terminal sees.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** `text` for one line of a log or terminal: secrets redacted, then cut to `max` characters, then every unprintable character shown as `?`. */
export function printable(text: string, max = 200, redactor: Redactor = SHAPES_ONLY): string {
  return redactor
    .redact(text.length > max * 2 + 1024 ? text.slice(0, max * 2 + 1024) : text)
    .slice(0, max)
    .replace(UNPRINTABLE, '?');
}

/** `error` with its message and param through `redact` (the same error when nothing changed; `cause` kept). */
export function redactedError(error: ResponsesError, redact: (text: string) => string): ResponsesError {
  const message = redact(error.message);
  const param = error.param === null || redact(error.param) === error.param ? error.param : null;
  if (message === error.message && param === error.param) return error;
  return new ResponsesError(error.type, error.code, message, param, error.status, {
    headers: error.headers,
    cause: error.cause,
  });
}
