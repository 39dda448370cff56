import { ResponsesError } from '../errors.js';
import type { Middleware } from './middleware.js';

/** Which browser origins may call the server: `true` any, `{ origin }` that one, nothing: only the server's own pages. */
export type CorsSetting = boolean | { origin: string } | undefined;

/**
 * Whether a request from a browser page at `origin` may be served. Requests without `Origin` (every
 * non-browser client) and same-origin requests (the server's own pages) may; other pages only when the
 * CORS configuration allows their origin. Without this, any web page could drive a local open server
 * through a form post or a WebSocket (neither needs a CORS preflight).
 */
export function originAllowed(origin: string | null, host: string | null, cors: CorsSetting): boolean {
  if (origin === null) return true;
  if (cors === true) return true;
  if (cors && (cors.origin === '*' || cors.origin === origin)) return true;
  if (origin === 'null' || host === null) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

export function originRefused(origin: string): ResponsesError {
  return new ResponsesError(
    'invalid_request',
    'origin_not_allowed',
    `Requests from the web origin '${origin}' are not allowed; configure CORS to allow it.`,
    null,
    403,
  );
}

/**
 * Refuses requests from web pages whose origin the CORS setting does not allow (a form post or a
 * `fetch` in `no-cors` mode needs no preflight, so without this any page could drive a local server).
 */
export function originCheck(cors: CorsSetting): Middleware {
  return (request, next) => {
    const origin = request.header('origin');
    if (origin !== null && !originAllowed(origin, request.header('host'), cors)) throw originRefused(origin);
    return next(request);
  };
}
