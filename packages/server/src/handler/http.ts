import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';
import type { Cancellation } from '../responses/cancellation.js';

/**
 * A request as the service reads it. Transports give it cheaply: the fetch-style handler from a web
 * `Request`, the Node entry straight from `node:http` (web `Request`/`Response` objects cost Node
 * ~20 µs each to build, more than a whole turn of the embedded model).
 */
export interface ServiceRequest {
  method: string;
  /** The path, without the query string. */
  path: string;
  /** A request header by lower-case name, or null. */
  header(name: string): string | null;
  /** The body as UTF-8 text, or null when it is longer than `maxBytes` (the rest is not kept). */
  text(maxBytes: number): Promise<string | null>;
  /** Cancelled when the client goes away. */
  cancellation?: Cancellation;
}

/** An event stream: `pipe(write)` writes SSE text (or its bytes) in order and settles when the stream has ended. */
export interface ServiceEventStream {
  pipe(write: (chunk: string | Uint8Array) => void): Promise<void>;
}

export interface ServiceResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text, an event stream, or nothing. */
  body: string | ServiceEventStream | null;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): ServiceResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function errorResponse(error: unknown, headers: Record<string, string> = {}): ServiceResponse {
  const failure = asResponsesError(error);
  return json(failure.status, failure.toJSON(), Object.assign({}, headers, failure.headers));
}

/**
 * Reads a request body as the OpenAPI declares it: `application/json` or
 * `application/x-www-form-urlencoded` (fields holding JSON are parsed), within a size limit.
 */
export async function readBody(request: ServiceRequest, maxBytes: number): Promise<unknown> {
  const type = (request.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    throw invalidRequest(
      'unsupported_media_type',
      `Content-Type must be application/json or application/x-www-form-urlencoded, got '${type || 'none'}'.`,
      null,
      415,
    );
  }
  const declared = Number(request.header('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await request.text(maxBytes);
  if (text === null) throw tooLarge(maxBytes);
  if (type === 'application/x-www-form-urlencoded') return fromForm(text);
  if (text.trim() === '') throw invalidRequest('invalid_json', 'The request body is empty; expected a JSON object.');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

const tooLarge = (maxBytes: number) =>
  invalidRequest('request_too_large', `The request body is larger than ${maxBytes} bytes.`, null, 413);

/** Form fields are strings; values that are JSON (arrays, objects, numbers, booleans) are parsed. */
function fromForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    try {
      out[key] = /^[[{]|^(true|false|null|-?\d)/.test(value.trim()) ? JSON.parse(value) : value;
    } catch {
      out[key] = value;
    }
  }
  return out;
}

/** Compares secrets in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let difference = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) difference |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return difference === 0;
}

export function unauthorized(): ResponsesError {
  return new ResponsesError(
    'authentication_error',
    'invalid_api_key',
    'Missing or invalid API key: send Authorization: Bearer <key>.',
  );
}
