// Deliberately broken servers: the reference handler with one rule broken each, served on 127.0.0.1.
// They stand in for the third-party servers the suite exists to diagnose.
import { createServer, type Server } from 'node:http';
import { encodeEvent, SSE_DONE } from '@openresponses/events';
import { createResponsesHandler } from '@openresponses/server';
import { toNodeListener } from '@openresponses/server/node';

type Event = Record<string, unknown> & { type: string };
type Handler = (request: Request) => Promise<Response>;

/** Rewrites the SSE events (and whether [DONE] is sent) of streamed answers. */
function rewriteStream(handler: Handler, rewrite: (events: Event[]) => { events: Event[]; done: boolean }): Handler {
  return async (request) => {
    const response = await handler(request);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response;
    const text = await response.text();
    const events = text
      .split('\n\n')
      .map((block) => /^data: (.*)$/m.exec(block)?.[1])
      .filter((data): data is string => !!data && data !== '[DONE]')
      .map((data) => JSON.parse(data) as Event);
    const result = rewrite(events);
    return new Response(result.events.map(encodeEvent).join('') + (result.done ? SSE_DONE : ''), {
      status: 200,
      headers: response.headers,
    });
  };
}

/** Rewrites JSON request bodies before the reference handler sees them. */
function rewriteRequest(
  handler: Handler,
  rewrite: (body: Record<string, unknown>) => Record<string, unknown>,
): Handler {
  return async (request) => {
    if (request.method !== 'POST' || !(request.headers.get('content-type') ?? '').includes('json'))
      return handler(request);
    const body = rewrite((await request.json()) as Record<string, unknown>);
    return handler(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }));
  };
}

export const BROKEN_SERVERS: Record<string, (handler: Handler) => Handler> = {
  /** Announces each output item one event too late. */
  'wrong-order': (handler) =>
    rewriteStream(handler, (events) => {
      const out = [...events];
      for (let i = 0; i < out.length - 1; i++) {
        if (out[i]!.type === 'response.output_item.added') {
          [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
          i++;
        }
      }
      return { events: out, done: true };
    }),
  /** Every event has sequence_number 0. */
  'repeated-sequence-numbers': (handler) =>
    rewriteStream(handler, (events) => ({ events: events.map((e) => ({ ...e, sequence_number: 0 })), done: true })),
  /** Never sends data: [DONE]. */
  'missing-done': (handler) => rewriteStream(handler, (events) => ({ events, done: false })),
  /** Turns a failure into an empty success. */
  'swallowed-error': (handler) =>
    rewriteStream(handler, (events) => {
      const failed = events.findIndex((e) => e.type === 'response.failed');
      if (failed < 0) return { events, done: true };
      const kept = events.filter((e) => e.type !== 'error' && e.type !== 'response.failed');
      const response = { ...(events[failed]!.response as Record<string, unknown>), status: 'completed', error: null };
      return {
        events: [...kept, { type: 'response.completed', sequence_number: events[failed]!.sequence_number, response }],
        done: true,
      };
    }),
  /** Ignores previous_response_id. */
  'forgets-previous-response': (handler) =>
    rewriteRequest(handler, (body) => {
      const { previous_response_id: _ignored, ...rest } = body;
      return rest;
    }),
  /** Treats allowed_tools as plain auto. */
  'ignores-allowed-tools': (handler) =>
    rewriteRequest(handler, (body) =>
      (body.tool_choice as { type?: string } | undefined)?.type === 'allowed_tools'
        ? { ...body, tool_choice: 'auto' }
        : body,
    ),
};

export async function serveBroken(
  name: keyof typeof BROKEN_SERVERS,
): Promise<{ baseURL: string; close(): Promise<void> }> {
  const handler = BROKEN_SERVERS[name]!(createResponsesHandler({ apiKeys: ['broken-key'] }));
  const server: Server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
