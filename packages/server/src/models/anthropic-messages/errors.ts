import { upstreamCredentialsRefused, upstreamModelUnknown } from '../upstream.js';
import { ResponsesError } from '../../errors.js';

/**
 * Anthropic's errors (by HTTP status and `error.type`) as spec errors. `message` is the upstream's, and is
 * redacted and bounded by the provider (src/redaction.ts); the upstream's `type` only selects a row here and
 * is never shown (a client sees the spec's type and the gateway's code, whatever the upstream sent).
 *
 * | upstream | spec |
 * | --- | --- |
 * | 400 `invalid_request_error` | 400 `invalid_request` `upstream_rejected_request` |
 * | 401 `authentication_error`, 403 `permission_error` | 500 `server_error` `upstream_authentication_failed` (the gateway's key; never shown) |
 * | 404 `not_found_error` | 400 `invalid_request` `model_not_found`, param `model` |
 * | 413 `request_too_large` | 400 `invalid_request` `request_too_large`, param `input` |
 * | 429 `rate_limit_error` | 429 `too_many_requests` `rate_limited`, with `retry-after` |
 * | 529 `overloaded_error` (or that type mid-stream) | 503 `server_error` `upstream_overloaded`, with `retry-after` when sent |
 * | 500 `api_error`, other 5xx, a mid-stream `error` | 500 `model_error` `upstream_error` |
 */
export function upstreamError(
  upstreamType: unknown,
  message: string,
  status?: number,
  midStream = false,
  headers: Record<string, string> = {},
): ResponsesError {
  const type = typeof upstreamType === 'string' ? upstreamType : undefined;
  const where = midStream ? 'mid-stream' : `(HTTP ${status})`;
  if (type === 'overloaded_error' || status === 529)
    return new ResponsesError(
      'server_error',
      'upstream_overloaded',
      `The upstream provider is overloaded ${where}; retry later: ${message}`,
      null,
      503,
      { headers },
    );
  if (type === 'rate_limit_error' || status === 429)
    return new ResponsesError(
      'too_many_requests',
      'rate_limited',
      `The upstream provider is rate limiting: ${message}`,
      null,
      429,
      { headers },
    );
  if (midStream || status === undefined || status >= 500 || status === 408)
    return new ResponsesError('model_error', 'upstream_error', `The upstream model failed ${where}: ${message}`);
  if (status === 401 || status === 403 || type === 'authentication_error' || type === 'permission_error')
    return upstreamCredentialsRefused(status);
  if (status === 404 || type === 'not_found_error') return upstreamModelUnknown(message);
  if (status === 413 || type === 'request_too_large')
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
    null,
    400,
  );
}
