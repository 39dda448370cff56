// The spec errors an upstream call (./upstream-call.ts) fails with, whatever the provider family: its own
// stops (idle timer, deadline), an upstream it cannot reach, one that says it is unavailable, and answers past
// a bound. Each keeps what caused it as `cause`; upstream words pass through the call's redactor first.
import { ResponsesError } from '../errors.js';
import type { UpstreamLimits } from '../limits.js';
import { errorText, type Redactor, upstreamRetryHeaders } from '../redaction.js';
import type { UpstreamResponse } from './upstream.js';

/** What a client span of a call the client left is marked with (`error.type` `cancelled`). */
export const CLIENT_GONE = Object.assign(new Error('The client went away; the upstream call was dropped.'), {
  code: 'cancelled',
});

/**
 * Why a call failed, as a spec error (`server_error`, with the status a gateway answers for it): the idle timer
 * or the deadline (504), else an upstream that cannot be reached (502). A spec error already is itself.
 */
export function callFailure(
  error: unknown,
  stopped: 'idle' | 'deadline' | undefined,
  limits: Pick<UpstreamLimits, 'upstreamIdleMs' | 'upstreamDeadlineMs'>,
  redactor: Redactor,
): ResponsesError {
  if (error instanceof ResponsesError) return error;
  if (stopped === 'deadline')
    return new ResponsesError(
      'server_error',
      'upstream_deadline_exceeded',
      `The upstream model did not finish within ${limits.upstreamDeadlineMs} ms (this server's limit for one upstream call).`,
      null,
      504,
      { cause: error },
    );
  if (stopped === 'idle')
    return new ResponsesError(
      'server_error',
      'upstream_timeout',
      `The upstream model did not answer within ${limits.upstreamIdleMs} ms (keep-alive comments do not count).`,
      null,
      504,
      { cause: error },
    );
  return new ResponsesError(
    'server_error',
    'upstream_unavailable',
    `The upstream model could not be reached (${redactor.text(errorText(error), 300)}).`,
    null,
    502,
    { cause: error },
  );
}

/**
 * An upstream's 503, whatever its family: 503 `server_error` with its `retry-after`, so clients and fallbacks
 * retry; `body` its error body as JSON (undefined when it was not), whose message is quoted redacted.
 */
export function unavailable(body: unknown, headers: UpstreamResponse['headers'], redactor: Redactor): ResponsesError {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  const said = typeof message === 'string' ? `: ${redactor.text(message, 300)}` : '';
  return new ResponsesError(
    'server_error',
    'upstream_overloaded',
    `The upstream provider is unavailable (HTTP 503); retry later${said}`,
    null,
    503,
    { headers: upstreamRetryHeaders(headers) },
  );
}

/** A whole upstream body past `maxUpstreamBodyBytes` (`max`). */
export const bodyTooLarge = (max: number): ResponsesError =>
  new ResponsesError(
    'model_error',
    'upstream_response_too_large',
    `The upstream answer is larger than this server's limit of ${max} bytes for one upstream body; it was not read further.`,
  );

/** An upstream stream past `maxUpstreamStreamBytes` (`max`) in all. */
export const streamTooLarge = (max: number): ResponsesError =>
  new ResponsesError(
    'model_error',
    'upstream_response_too_large',
    `The upstream stream sent more than this server's limit of ${max} bytes for one answer; it was not read further.`,
  );

/** A stream line or event past `maxUpstreamEventBytes` (`max`), found at `byteOffset` of the stream. */
export const eventTooLarge = (max: number, byteOffset: number): ResponsesError =>
  new ResponsesError(
    'model_error',
    'upstream_event_too_large',
    `The upstream sent a stream line or event larger than this server's limit of ${max} bytes (at byte ${byteOffset} of the stream); it was not read further.`,
  );
