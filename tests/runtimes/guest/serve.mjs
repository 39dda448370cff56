// The fetch-style handler on the runtime's own HTTP server (Bun.serve, Deno.serve) on 127.0.0.1, port 0.
import { createResponsesHandler } from '@openresponses/server';

export async function serve({ apiKey }) {
  const handler = createResponsesHandler({ apiKeys: [apiKey], validateOutgoing: true });
  if (globalThis.Bun) {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handler });
    return `http://127.0.0.1:${server.port}`;
  }
  if (globalThis.Deno) {
    return await new Promise((resolve) => {
      Deno.serve(
        { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => resolve(`http://127.0.0.1:${port}`) },
        handler,
      );
    });
  }
  throw new Error('this runtime has no Bun.serve or Deno.serve');
}
