import { ResponsesError } from '../../errors.js';
import { upstreamCredentialsRefused, upstreamModelUnknown } from '../upstream.js';
import { retryAfterSeconds } from '../../redaction.js';
import type { GeminiError } from './wire.js';

/**
 * Google's errors (`{ error: { code, message, status, details } }`, google.rpc.Status) as spec errors. `message`
 * is the upstream's, redacted and bounded by the provider; the upstream's `status` only selects a row here.
 *
 * | upstream | spec |
 * | --- | --- |
 * | 400 `INVALID_ARGUMENT`, `FAILED_PRECONDITION`, `OUT_OF_RANGE` | 400 `invalid_request` `upstream_rejected_request`, `param` when the field is one a request sets |
 * | 400 with `ErrorInfo` `API_KEY_INVALID`, 401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED` | 500 `server_error` `upstream_authentication_failed` (the gateway's key; never shown) |
 * | 404 `NOT_FOUND` | 400 `invalid_request` `model_not_found`, param `model` |
 * | 413 | 400 `invalid_request` `request_too_large`, param `input` |
 * | 429 `RESOURCE_EXHAUSTED` | 429 `too_many_requests` `rate_limited`, `Retry-After` from `RetryInfo.retryDelay` (or the header) |
 * | 503 `UNAVAILABLE` | 503 `server_error` `upstream_overloaded`, with `Retry-After` when sent |
 * | 500 `INTERNAL`, 504 `DEADLINE_EXCEEDED`, other 5xx, a mid-stream error | 500 `model_error` `upstream_error` |
 */
export function upstreamError(
  error: GeminiError | undefined,
  message: string,
  status?: number,
  midStream = false,
  headers: Record<string, string> = {},
): ResponsesError {
  const code = error?.status ?? undefined;
  const where = midStream ? 'mid-stream' : `(HTTP ${status})`;
  const retry = retryHeaders(error, headers);
  if (code === 'RESOURCE_EXHAUSTED' || status === 429)
    return new ResponsesError(
      'too_many_requests',
      'rate_limited',
      `The upstream provider is rate limiting: ${message}`,
      null,
      429,
      { headers: retry },
    );
  if (code === 'UNAVAILABLE' || status === 503)
    return new ResponsesError(
      'server_error',
      'upstream_overloaded',
      `The upstream provider is unavailable ${where}; retry later: ${message}`,
      null,
      503,
      { headers: retry },
    );
  if (midStream || status === undefined || status >= 500 || status === 408)
    return new ResponsesError('model_error', 'upstream_error', `The upstream model failed ${where}: ${message}`);
  if (
    status === 401 ||
    status === 403 ||
    code === 'UNAUTHENTICATED' ||
    code === 'PERMISSION_DENIED' ||
    reasonOf(error) === 'API_KEY_INVALID'
  )
    return upstreamCredentialsRefused(status);
  if (status === 404 || code === 'NOT_FOUND') return upstreamModelUnknown(message);
  if (status === 413)
    return new ResponsesError(
      'invalid_request',
      'request_too_large',
      `The request is larger than the upstream provider takes (HTTP 413): ${message}`,
      'input',
      400,
    );
  return new ResponsesError(
    'invalid_request',
    'upstream_rejected_request',
    `The upstream provider rejected the request (HTTP ${status}): ${message}`,
    paramOf(error),
    400,
  );
}

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/** The clamped retry headers, with `Retry-After` from `RetryInfo.retryDelay` (`"34s"`, `"1.5s"`) when the headers had none. */
function retryHeaders(error: GeminiError | undefined, headers: Record<string, string>): Record<string, string> {
  if (headers['retry-after'] !== undefined) return headers;
  const info = error?.details?.find((detail) => detail['@type'] === RETRY_INFO) as { retryDelay?: unknown } | undefined;
  const delay =
    typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay.trim())?.[1] : undefined;
  const seconds = retryAfterSeconds(delay);
  return seconds === undefined ? headers : { ...headers, 'retry-after': String(seconds) };
}

function reasonOf(error: GeminiError | undefined): string | undefined {
  const info = error?.details?.find((detail) => detail['@type'] === ERROR_INFO) as { reason?: unknown } | undefined;
  return typeof info?.reason === 'string' ? info.reason : undefined;
}

/** Gemini request fields (snake or camel case, lower-cased without `_`) and the request field that sets each. */
const PARAMS: Array<[RegExp, string]> = [
  [/maxoutputtokens/, 'max_output_tokens'],
  [/temperature/, 'temperature'],
  [/topp\b/, 'top_p'],
  [/responsejsonschema|responseschema|responsemimetype/, 'text.format'],
  [/thinkingconfig|thinkingbudget|thinkinglevel/, 'reasoning'],
  [/toolconfig|functioncallingconfig/, 'tool_choice'],
  [/tools|functiondeclarations/, 'tools'],
  [/systeminstruction/, 'instructions'],
  [/contents/, 'input'],
  [/presencepenalty/, 'presence_penalty'],
  [/frequencypenalty/, 'frequency_penalty'],
];

/** The request field a refusal names (a `BadRequest` field violation, or `GenerateContentRequest.<field>` in the message), when it is one a client sets. */
function paramOf(error: GeminiError | undefined): string | null {
  const violations = error?.details?.find((detail) => detail['@type'] === BAD_REQUEST) as
    | { fieldViolations?: Array<{ field?: unknown }> }
    | undefined;
  const fields = (violations?.fieldViolations ?? []).map((v) => (typeof v.field === 'string' ? v.field : ''));
  const named = /GenerateContentRequest\.([\w.[\]]+)/.exec(error?.message ?? '')?.[1];
  if (named) fields.push(named);
  for (const field of fields) {
    const key = field.toLowerCase().replace(/_/g, '');
    for (const [pattern, param] of PARAMS) if (pattern.test(key)) return param;
  }
  return null;
}
