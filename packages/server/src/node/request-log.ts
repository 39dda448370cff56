// The CLI's request log (`--log-format text|json`): one line per answered request, written from the
// service's `onRequest` hook. What the hook hears holds no header, key or content (see `RequestLog`);
// values a client chose (the path, the model name, its x-request-id) pass the egress redactor, are cut
// short and keep to one line with no control or bidirectional formatting character, in both formats.
import type { RequestLog } from '../handler/middleware.js';
import { printable } from '../redaction.js';

export type LogFormat = 'text' | 'json';

/** A client-chosen value as a log shows it: redacted, at most 200 characters, unprintable characters replaced. */
const clean = (text: string) => printable(text, 200);
const cleanOrUndefined = (text: string | undefined) => (text === undefined ? undefined : clean(text));

/** One JSON object per line: time, method, route, path, status, durationMs, requestId, model, tokens, traceId. */
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
  });
}

/** `2026-01-15T10:00:00.000Z POST /v1/responses 200 12.3 ms req_… model=… tokens=12+40 trace=…` */
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
