/** Error types of the spec, each with its HTTP status (plus authentication, which the spec leaves to servers). */
export const ERROR_STATUS = {
  invalid_request: 400,
  authentication_error: 401,
  not_found: 404,
  too_many_requests: 429,
  server_error: 500,
  model_error: 500,
} as const;
export type ErrorType = keyof typeof ERROR_STATUS;

/** A failure with the spec's error object: `{ error: { type, code, param, message } }`. */
export class ResponsesError extends Error {
  override name = 'ResponsesError';
  readonly status: number;
  /** Seconds a client should wait before retrying (sent as `Retry-After` on 429s). */
  readonly retryAfterSeconds?: number;
  constructor(
    readonly type: ErrorType,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    status?: number,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status ?? ERROR_STATUS[type];
    this.headers = options.headers ?? {};
  }

  /** Headers the HTTP answer carries (`retry-after` of a rate limit passed on from an upstream). */
  readonly headers: Record<string, string>;

  toJSON() {
    return { error: { type: this.type, code: this.code, param: this.param, message: this.message } };
  }
}

export const invalidRequest = (
  code: string,
  message: string,
  param: string | null = null,
  status = 400,
  options?: { cause?: unknown },
) => new ResponsesError('invalid_request', code, message, param, status, options);

/** Anything thrown that is not a ResponsesError is a server bug: report it without leaking internals. */
export function asResponsesError(error: unknown): ResponsesError {
  if (error instanceof ResponsesError) return error;
  if (error instanceof StoreUnavailableError)
    return new ResponsesError(
      'server_error',
      'store_unavailable',
      'The response store is unavailable; the response was not stored (at most as failed). The request can be retried.',
      null,
      503,
      { cause: error },
    );
  if (error instanceof StoreEntryTooLargeError)
    return new ResponsesError('invalid_request', 'response_too_large', error.message, null, 413, { cause: error });
  return new ResponsesError(
    'server_error',
    'internal_error',
    'The server hit an unexpected condition; the request can be retried.',
  );
}

/** The backend cannot answer now (unreachable, timed out); retrying later can succeed. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** A response too large for the store's budget: it is not stored (the service answers 413). */
export class StoreEntryTooLargeError extends Error {
  override name = 'StoreEntryTooLargeError';
}
