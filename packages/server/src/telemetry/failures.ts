// How a failure is told on a span: its `error.type` and a content-free exception event.
import type { Span } from '@opentelemetry/api';
import { reportedName } from './attributes.js';

/**
 * The exception event of a failure. An error's message may quote a prompt, a completion or an upstream's
 * words, so by default the event holds none of it: `exception.type` is its `error.type`, and
 * `exception.message` its spec error type and code (`model_error: tool_not_allowed`) or class and system code
 * (`TypeError ECONNREFUSED`), with no stack (whose first line is the message). `message` replaces that only
 * where the caller may record content (a turn's span with content capture on), already redacted.
 */
export function recordFailure(span: Span, error: unknown, message?: string): void {
  const type = errorTypeOf(error);
  span.recordException({ name: type, message: message ?? contentFreeMessage(error, type) });
}

function contentFreeMessage(error: unknown, type: string): string {
  if (!error || typeof error !== 'object') return type;
  const { type: specType, code, name } = error as { type?: unknown; code?: unknown; name?: unknown };
  if (typeof specType === 'string' && typeof code === 'string') return `${reportedName(specType)}: ${type}`;
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  const systemCode = typeof code === 'string' ? code : typeof cause === 'string' ? cause : undefined;
  const kind = typeof name === 'string' ? reportedName(name) : type;
  return systemCode === undefined || systemCode === kind ? kind : `${kind} ${reportedName(systemCode)}`;
}

/** `error.type` of a failure: a spec error's code (`rate_limit_exceeded`, `upstream_unavailable`…), else its class name. */
export function errorTypeOf(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return reportedName(code);
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return reportedName(name);
  }
  return '_OTHER';
}
