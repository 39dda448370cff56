import type { ResponseResource } from '@openresponses/types';

/**
 * Every failure the client reports: from the server (with the spec's error object), or from the transport.
 * Subclasses follow openai-node's names, so `instanceof RateLimitError` and friends work as its users expect.
 */
export class OpenResponsesError extends Error {
  /** The class name (`'BadRequestError'`, …), also in the error's `stack`. */
  override name = 'OpenResponsesError';
  /** The server's `x-request-id` for this request, when it answered. */
  readonly requestId: string | null;
  constructor(
    message: string,
    /** HTTP status (or the WebSocket envelope's `status`); 0 when the request never got an answer. */
    readonly status: number,
    /** The spec error `type` (`invalid_request_error`, `server_error`, …), or the client's own (`connection_error`, `user_abort`, `invalid_payload`). */
    readonly type: string,
    /** The spec error `code` (`rate_limit_exceeded`, …), when the server gave one; `timeout` for a timed-out request. */
    readonly code: string | null,
    /** The request field the error is about (`input[0].content`), when the server named one. */
    readonly param: string | null,
    /** The answer's headers, when there was an answer. */
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
  /** `'APIError'`. */
  override name = 'APIError';
}
/** 400: the request is invalid (`invalid_request_error`). */
export class BadRequestError extends APIError {
  /** `'BadRequestError'`. */
  override name = 'BadRequestError';
}
/** 401: the API key is missing or wrong. */
export class AuthenticationError extends APIError {
  /** `'AuthenticationError'`. */
  override name = 'AuthenticationError';
}
/** 403: the key may not do this. */
export class PermissionDeniedError extends APIError {
  /** `'PermissionDeniedError'`. */
  override name = 'PermissionDeniedError';
}
/** 404: no such response (or model, or route). */
export class NotFoundError extends APIError {
  /** `'NotFoundError'`. */
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the resource's state (cancelling a finished response, …). */
export class ConflictError extends APIError {
  /** `'ConflictError'`. */
  override name = 'ConflictError';
}
/** 422: the request is well-formed but cannot be processed. */
export class UnprocessableEntityError extends APIError {
  /** `'UnprocessableEntityError'`. */
  override name = 'UnprocessableEntityError';
}
/** 429: too many requests; retried with backoff (`Retry-After` honoured). */
export class RateLimitError extends APIError {
  /** `'RateLimitError'`. */
  override name = 'RateLimitError';
}
/** 5xx: the server failed; retried with backoff. */
export class InternalServerError extends APIError {
  /** `'InternalServerError'`. */
  override name = 'InternalServerError';
}

/** The request got no answer (refused, reset, DNS); `cause` is the underlying error. */
export class APIConnectionError extends OpenResponsesError {
  /** `'APIConnectionError'`. */
  override name = 'APIConnectionError';
  constructor(message: string, options: { cause?: unknown; code?: string | null } = {}) {
    super(message, 0, 'connection_error', options.code ?? null, null, undefined, options);
  }
}

/** The request took longer than its `timeout`. */
export class APIConnectionTimeoutError extends APIConnectionError {
  /** `'APIConnectionTimeoutError'`. */
  override name = 'APIConnectionTimeoutError';
  constructor(timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`The request timed out after ${timeoutMs} ms.`, { ...options, code: 'timeout' });
  }
}

/** The caller's `signal` aborted the request; never retried. */
export class APIUserAbortError extends OpenResponsesError {
  /** `'APIUserAbortError'`. */
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
  /** `'ResponseFailedError'`. */
  override name = 'ResponseFailedError';
  constructor(
    /** The response as the `response.failed` event carried it (status `failed`, with its `error`). */
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
  /** `'InvalidPayloadError'`. */
  override name = 'InvalidPayloadError';
  constructor(
    what: string,
    /** What did not match, one entry per problem: the field's path and the message. */
    readonly issues: ReadonlyArray<{
      /** Where (`output[0].content`; empty for the payload itself). */
      path: string;
      /** What is wrong there. */
      message: string;
    }>,
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

/** The typed error for an error answer: its class by status, its fields from the spec error body (or the status text). */
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
