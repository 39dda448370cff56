// The CLI's request log (`--log-format text|json`): one line per answered request, written from the
// service's `onRequest` hook. What the hook hears holds no header, key or content (see `RequestLog`);
// values a client or an upstream chose (the path, the model name, its x-request-id, a failure's message)
// pass the egress redactor, are cut short and keep to one line with no control or bidirectional formatting
// character, in both formats. Without `--log-format` the CLI still prints the failed turns an operator must
// see (`failureLogger`): an upstream refusing the gateway's key must not go unnoticed.
import type { FailedTurnsFilter, RequestLog } from '../handler/middleware.js';
import { printable } from '../redaction.js';
import type { TurnFailure } from '../telemetry/attributes.js';

export type LogFormat = 'text' | 'json';

/** A client-chosen value as a log shows it: redacted, at most 200 characters, unprintable characters replaced. */
const clean = (text: string) => printable(text, 200);
const cleanOrUndefined = (text: string | undefined) => (text === undefined ? undefined : clean(text));
/** The most characters of a failure's message a log line shows (after redaction). */
const MAX_FAILURE_MESSAGE_CHARS = 500;

/** A failure as a log shows it: the message redacted again (common secret shapes), then cut, on one line. */
function cleanFailure(failure: TurnFailure): TurnFailure {
  return {
    type: clean(failure.type),
    code: clean(failure.code),
    status: failure.status,
    message: printable(failure.message, MAX_FAILURE_MESSAGE_CHARS),
    provider: cleanOrUndefined(failure.provider),
  };
}

/** One JSON object per line: time, method, route, path, status, durationMs, requestId, model, tokens, traceId, failure, upstream. */
export function jsonLine(entry: RequestLog, time = new Date()): string {
  return JSON.stringify({
    time: time.toISOString(),
    method: entry.method,
    route: entry.route,
    path: clean(entry.path),
    status: entry.status,
    durationMs: Math.round(entry.durationMs * 1000) / 1000,
    requestId: cleanOrUndefined(entry.requestId),
    model: cleanOrUndefined(entry.model),
    inputTokens: entry.inputTokens,
    outputTokens: entry.outputTokens,
    traceId: entry.traceId,
    background: entry.background,
    failure: entry.failure && cleanFailure(entry.failure),
    upstream: cleanOrUndefined(entry.upstream),
  });
}

/**
 * `2026-01-15T10:00:00.000Z POST /v1/responses 200 12.3 ms req_… model=… tokens=12+40 trace=…`, then
 * `background=true` for a background turn's own line, and for a failed turn ` failed=<code> status=<status> type=<type> provider=<route> upstream=<name> message="…"`.
 */
export function textLine(entry: RequestLog, time = new Date()): string {
  const parts = [
    time.toISOString(),
    clean(entry.method),
    clean(entry.path),
    String(entry.status),
    `${entry.durationMs.toFixed(1)} ms`,
  ];
  if (entry.requestId !== undefined) parts.push(clean(entry.requestId));
  if (entry.model !== undefined) parts.push(`model=${clean(entry.model)}`);
  if (entry.inputTokens !== undefined || entry.outputTokens !== undefined)
    parts.push(`tokens=${entry.inputTokens ?? 0}+${entry.outputTokens ?? 0}`);
  if (entry.traceId !== undefined) parts.push(`trace=${entry.traceId}`);
  if (entry.background) parts.push('background=true');
  if (entry.failure) {
    const failure = cleanFailure(entry.failure);
    parts.push(`failed=${failure.code}`, `status=${failure.status}`, `type=${failure.type}`);
    if (failure.provider !== undefined) parts.push(`provider=${failure.provider}`);
    if (entry.upstream !== undefined) parts.push(`upstream=${clean(entry.upstream)}`);
    // Last, quoted: the message has spaces and may hold `=`.
    parts.push(`message=${JSON.stringify(failure.message)}`);
  }
  return parts.join(' ');
}

/** The `onRequest` hook that writes each request's line in `format` to `write` (default stdout). */
export function requestLogger(
  format: LogFormat,
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): (entry: RequestLog) => void {
  const line = format === 'json' ? jsonLine : textLine;
  return (entry) => write(line(entry));
}

/**
 * Whether the default log reports a failed turn: the server's and the upstream's failures (5xx: an upstream
 * unreachable, timing out, refusing the gateway's key, sending what cannot be read) and an upstream's rate
 * limit (429), not what the client caused (a bad request, a model nobody serves) nor a turn it cancelled.
 */
export function operatorFailure(failure: TurnFailure): boolean {
  return (failure.status >= 500 && failure.code !== 'cancelled') || failure.status === 429;
}

/**
 * The CLI's log without `--log-format`: a text line for each turn that failed by `operatorFailure` (streamed
 * failures and WebSocket turns included), written to `write` (default stderr); every other request is quiet.
 */
export function failureLogger(
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): ((entry: RequestLog) => void) & Required<FailedTurnsFilter> {
  // `failedTurns` lets the service skip every other request before it builds an entry.
  return Object.assign(
    (entry: RequestLog) => {
      if (entry.failure && operatorFailure(entry.failure)) write(textLine(entry));
    },
    { failedTurns: operatorFailure },
  );
}
