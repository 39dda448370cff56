import { asResponsesError, invalidRequest, ResponsesError } from '../errors.js';

export function json(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function errorResponse(error: unknown, headers: HeadersInit = {}): Response {
  const failure = asResponsesError(error);
  return json(failure.status, failure.toJSON(), headers);
}

/**
 * Reads a request body as the OpenAPI declares it: `application/json` or
 * `application/x-www-form-urlencoded` (fields holding JSON are parsed), within a size limit.
 */
export async function readBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') {
    throw invalidRequest('unsupported_media_type', `Content-Type must be application/json or application/x-www-form-urlencoded, got '${type || 'none'}'.`, null, 415);
  }
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readLimited(request, maxBytes);
  if (type === 'application/x-www-form-urlencoded') return fromForm(text);
  if (text.trim() === '') throw invalidRequest('invalid_json', 'The request body is empty; expected a JSON object.');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

const tooLarge = (maxBytes: number) => invalidRequest('request_too_large', `The request body is larger than ${maxBytes} bytes.`, null, 413);

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

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
  return new ResponsesError('authentication_error', 'invalid_api_key', 'Missing or invalid API key: send Authorization: Bearer <key>.');
}
