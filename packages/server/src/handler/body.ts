import { invalidRequest } from '../errors.js';
import { parseJson, type ServiceRequest } from '../exchange.js';
import { checkJsonDepth, type ServerLimits } from '../limits.js';

/**
 * Reads a request body as the OpenAPI declares it: `application/json` or
 * `application/x-www-form-urlencoded` (fields holding JSON are parsed), within a size limit.
 */
export async function readBody(
  request: ServiceRequest,
  limits: Pick<ServerLimits, 'maxBodyBytes' | 'maxJsonDepth'>,
): Promise<unknown> {
  const maxBytes = limits.maxBodyBytes;
  const header = request.header('content-type');
  // What nearly every client sends is taken as it is: splitting and lowering it cost more than the rest of this function.
  const type = header === 'application/json' ? header : (header ?? '').split(';')[0]!.trim().toLowerCase();
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
  if (type === 'application/x-www-form-urlencoded') return fromForm(text, limits);
  if (text.trim() === '') throw invalidRequest('invalid_json', 'The request body is empty; expected a JSON object.');
  return parseJson(text, limits, 'The request body');
}

export const tooLarge = (maxBytes: number) =>
  invalidRequest('request_too_large', `The request body is larger than ${maxBytes} bytes.`, null, 413);

/** Form fields are strings; values that are JSON (arrays, objects, numbers, booleans) are parsed. */
function fromForm(text: string, limits: Pick<ServerLimits, 'maxJsonDepth'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    checkJsonDepth(value, limits, `The form field '${key}'`);
    try {
      out[key] = /^[[{]|^(true|false|null|-?\d)/.test(value.trim()) ? JSON.parse(value) : value;
    } catch {
      out[key] = value;
    }
  }
  return out;
}
