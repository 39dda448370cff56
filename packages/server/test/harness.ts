// Starts the real reference server on 127.0.0.1 (ephemeral port) with outgoing validation on, and
// reads its streams through the real events package (decoder and checker). Every SSE stream a test server
// serves, whoever reads it (this harness, an SDK, raw fetch), goes through the outgoing stream checker
// (served-streams.ts), and a test after which a served stream broke the spec fails (test/setup.ts).
import { checkStream, decodeSSE, type AnyStreamingEvent, type Violation } from '@openresponses/events';
import { SPEC_VERSIONS } from '@openresponses/zod';
import { injectFaults } from '../src/testing/index.js';
import { startServer, type RunningServer, type StartServerOptions } from '../src/node/index.js';
import { checkServedStreams } from './served-streams.js';

export const API_KEY = 'test-key-0123456789';

/** A test server: keys, outgoing validation, fault injection (unless the test brings its own middleware), the served-stream check. */
export async function startTestServer(options: StartServerOptions = {}): Promise<RunningServer> {
  return startServer({
    apiKeys: [API_KEY],
    validateOutgoing: true,
    warn: () => {},
    ...options,
    middleware: [
      checkServedStreams({ lenient: options.compatibility === 'openai', registry: options.registry }),
      ...(options.middleware ?? [injectFaults()]),
    ],
  });
}

export function post(
  server: RunningServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Posts a streaming request and returns its events, whether [DONE] ended it, and the checker's verdict, for
 * the spec version the request asked for with `OpenResponses-Version` (the latest without it).
 */
export async function stream(
  server: RunningServer,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ events: AnyStreamingEvent[]; sawDone: boolean; violations: Violation[]; response: Response }> {
  const response = await post(server, '/v1/responses', { ...body, stream: true }, headers);
  if (!response.ok || !response.body)
    throw new Error(`stream request failed: ${response.status} ${await response.text()}`);
  const decoded = decodeSSE(response.body);
  const events: AnyStreamingEvent[] = [];
  for await (const event of decoded) events.push(event);
  const specVersion = SPEC_VERSIONS.find((version) => version === headers['openresponses-version']);
  const violations = checkStream(events, { sawDone: decoded.sawDone, ...(specVersion ? { specVersion } : {}) });
  return { events, sawDone: decoded.sawDone, violations, response };
}
