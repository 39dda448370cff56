import type { ResponseResource } from '@openresponses/types';

/** A failure reported by the server with the spec's error object, or by the transport. */
export class OpenResponsesError extends Error {
  override name = 'OpenResponsesError';
  constructor(
    message: string,
    /** HTTP status (or the WebSocket envelope's `status`); 0 when the request never got an answer. */
    readonly status: number,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null,
    readonly headers?: Headers,
  ) {
    super(message);
  }

  /** Whether retrying can help: rate limits, server errors, and requests that never got an answer. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 408 || this.status === 429 || this.status >= 500;
  }
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
export class InvalidPayloadError extends Error {
  override name = 'InvalidPayloadError';
  constructor(
    what: string,
    readonly issues: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(`${what} does not match the spec: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
}

export async function errorFromResponse(response: Response): Promise<OpenResponsesError> {
  const text = await response.text().catch(() => '');
  let body: { error?: { message?: string; type?: string; code?: string | null; param?: string | null } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const error = body?.error;
  return new OpenResponsesError(
    error?.message ?? (text.slice(0, 200) || `HTTP ${response.status}`),
    response.status,
    error?.type ?? 'http_error',
    error?.code ?? null,
    error?.param ?? null,
    response.headers,
  );
}
