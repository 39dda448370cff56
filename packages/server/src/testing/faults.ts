import { json } from '../exchange.js';
import type { Middleware } from '../handler/middleware.js';

/**
 * Fault injection for clients' retry tests, as middleware a test server adds (`middleware: [injectFaults()]`);
 * never part of a production server. A request with `OpenResponses-Test-Fail: <status>;times=<n>;key=<k>[;retry-after=<s>]`
 * fails with that status the first n times its key is seen.
 */
export function injectFaults(): Middleware {
  const seenByKey = new Map<string, number>();
  return (request, next) => {
    const header = request.header('openresponses-test-fail');
    if (!header) return next(request);
    const [statusText, ...params] = header.split(';').map((s) => s.trim());
    const settings = Object.fromEntries(params.map((p) => p.split('=') as [string, string]));
    const key = settings.key ?? header;
    const seen = seenByKey.get(key) ?? 0;
    if (seen >= Number(settings.times ?? 1)) return next(request);
    seenByKey.set(key, seen + 1);
    const status = Number(statusText);
    const type = status === 429 ? 'too_many_requests' : status >= 500 ? 'server_error' : 'invalid_request';
    const headers: Record<string, string> = settings['retry-after'] ? { 'retry-after': settings['retry-after'] } : {};
    return Promise.resolve(
      json(
        status,
        {
          error: {
            type,
            code: 'injected_fault',
            param: null,
            message: `Injected test fault ${seen + 1} of ${settings.times ?? 1}.`,
          },
        },
        headers,
      ),
    );
  };
}
