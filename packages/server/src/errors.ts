/** Error types of the spec, each with its HTTP status (plus authentication, which the spec leaves to servers). */
export const ERROR_STATUS = {
  /** 400: the request is invalid. */
  invalid_request: 400,
  /** 401: the API key is missing or wrong. */
  authentication_error: 401,
  /** 404: no such response, item or route. */
  not_found: 404,
  /** 429: too many requests (with `Retry-After`). */
  too_many_requests: 429,
  /** 500: the server failed. */
  server_error: 500,
  /** 500: the model (or its upstream) failed. */
  model_error: 500,
} as const;
/** The spec error `type`s the server answers with. */
export type ErrorType = keyof typeof ERROR_STATUS;

/** A failure with the spec's error object: `{ error: { type, code, param, message } }`. */
export class ResponsesError extends Error {
  /** `'ResponsesError'`. */
  override name = 'ResponsesError';
  /** The HTTP status it is answered with (by default its type's, from `ERROR_STATUS`). */
  readonly status: number;
  /** Seconds a client should wait before retrying (sent as `Retry-After` on 429s). */
  readonly retryAfterSeconds?: number;
  constructor(
    /** The spec error `type`. */
    readonly type: ErrorType,
    /** The spec error `code` (`missing_required_parameter`, `rate_limit_exceeded`, …). */
    readonly code: string,
    message: string,
    /** The request field the error is about, when there is one. */
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

  /** The spec's error body. */
  toJSON(): {
    /** The spec error object. */
    error: {
      /** The error `type`. */
      type: ErrorType;
      /** The error `code`. */
      code: string;
      /** The field it is about, or null. */
      param: string | null;
      /** What went wrong. */
      message: string;
    };
  } {
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
  /** `'StoreUnavailableError'`. */
  override name = 'StoreUnavailableError';
}

/** A response too large for the store's budget: it is not stored (the service answers 413). */
export class StoreEntryTooLargeError extends Error {
  /** `'StoreEntryTooLargeError'`. */
  override name = 'StoreEntryTooLargeError';
}

/**
 * A configuration file's first schema issue as one line, `where: what` (`routes[1].url: …`), `whole` naming the
 * file itself when the issue is about all of it.
 */
export function firstIssueLine(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  whole: string,
): string {
  const issue = issues[0]!;
  const where = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return `${where || whole}: ${issue.message}`;
}
