// The playground page at `/` (and its script at `/playground.js`): a self-contained page from
// @openresponses/playground that talks to this server's API only, so its policy allows nothing else.
import type { ServiceResponse } from '../exchange.js';

const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  // 'self' covers same-origin ws: and wss: (CSP level 3).
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

let page: Promise<typeof import('@openresponses/playground')> | undefined;

/** The page (`/`) or its script (`/playground.js`). */
export async function playgroundAsset(
  path: '/' | '/playground.js' | string,
  basePath: string,
): Promise<ServiceResponse> {
  // Loaded on first use: the page is ~0.5 MB of text that servers without it never hold.
  page ??= import('@openresponses/playground');
  const { PLAYGROUND_HTML, PLAYGROUND_SCRIPT } = await page;
  const headers = { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
  if (path === '/playground.js')
    return {
      status: 200,
      headers: { ...headers, 'content-type': 'text/javascript; charset=utf-8' },
      body: PLAYGROUND_SCRIPT,
    };
  return {
    status: 200,
    headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': POLICY },
    body: PLAYGROUND_HTML.replace('%BASE_PATH%', basePath),
  };
}
