import type { ResponseResource } from '@openresponses/types';

/**
 * Every failure the client reports: from the server (with the spec's error object), or from the transport.
 * Subclasses follow openai-node's names, so `instanceof RateLimitError` and friends work as its users expect.
 */
export class OpenResponsesError extends Error {
  override name = 'OpenResponsesError';
  /** The server's `x-request-id` for this request, when it answered. */
  readonly requestId: string | null;
  constructor(
    message: string,
    /** HTTP status (or the WebSocket envelope's `status`); 0 when the request never got an answer. */
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null,
    readonly headers?: Headers,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = headers?.get('x-request-id') ?? null;
  }

  /** Whether retrying can help: rate limits, server errors, and requests that never got an answer. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** The server answered with an error status. */
export class APIError extends OpenResponsesError {
  override name = 'APIError';
}
export class BadRequestError extends APIError {
  override name = 'BadRequestError';
}
export class AuthenticationError extends APIError {
  override name = 'AuthenticationError';
}
export class PermissionDeniedError extends APIError {
  override name = 'PermissionDeniedError';
}
export class NotFoundError extends APIError {
  override name = 'NotFoundError';
}
export class ConflictError extends APIError {
  override name = 'ConflictError';
}
export class UnprocessableEntityError extends APIError {
  override name = 'UnprocessableEntityError';
}
export class RateLimitError extends APIError {
  override name = 'RateLimitError';
}
export class InternalServerError extends APIError {
  override name = 'InternalServerError';
}

/** The request got no answer (refused, reset, DNS); `cause` is the underlying error. */
export class APIConnectionError extends OpenResponsesError {
  override name = 'APIConnectionError';
  constructor(message: string, options: { cause?: unknown; code?: string | null } = {}) {
    super(message, 0, 'connection_error', options.code ?? null, null, undefined, options);
  }
}

/** The request took longer than its `timeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = 'APIConnectionTimeoutError';
  constructor(timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`The request timed out after ${timeoutMs} ms.`, { ...options, code: 'timeout' });
  }
}

/** The caller's `signal` aborted the request; never retried. */
export class APIUserAbortError extends OpenResponsesError {
  override name = 'APIUserAbortError';
  constructor(options: { cause?: unknown } = {}) {
    super('The request was aborted.', 0, 'user_abort', null, null, undefined, options);
  }
  override get retryable(): boolean {
    return false;
  }
}

const ERROR_BY_STATUS: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** The error class for an HTTP status, as openai-node picks it. */
export function apiErrorClass(status: number): typeof APIError {
  return ERROR_BY_STATUS[status] ?? (status >= 500 ? InternalServerError : APIError);
}

/** A streamed response that ended in `response.failed`; carries the final response and the error event. */
export class ResponseFailedError extends OpenResponsesError {
  override name = 'ResponseFailedError';
  constructor(
    readonly response: ResponseResource,
    error: { type?: string; code?: string | null; message: string; param?: string | null },
  ) {
    super(error.message, 0, error.type ?? 'server_error', error.code ?? null, error.param ?? null);
  }
  override get retryable(): boolean {
    return false;
  }
}

/** The server's answer did not match the spec schema the client validates with. */
export class InvalidPayloadError extends OpenResponsesError {
  override name = 'InvalidPayloadError';
  constructor(
    what: string,
    readonly issues: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(
      `${what} does not match the spec: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
      0,
      'invalid_payload',
      null,
      null,
    );
  }
  override get retryable(): boolean {
    return false;
  }
}

export async function errorFromResponse(response: Response): Promise<APIError> {
  const text = await response.text().catch(() => '');
  let body: { error?: { message?: string; type?: string; code?: string | null; param?: string | null } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const error = body?.error;
  return new (apiErrorClass(response.status))(
    error?.message ?? (text.slice(0, 200) || `HTTP ${response.status}`),
    response.status,
    error?.type ?? 'http_error',
    error?.code ?? null,
    error?.param ?? null,
    response.headers,
  );
}
