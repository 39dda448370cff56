// The service on the runtime's own server (Bun.serve, Deno.serve) on 127.0.0.1, port 0: HTTP through the
// fetch-style handler, and WebSocket upgrades on /v1/responses through the transport-neutral session.
import { createResponsesService } from '@openresponses/server';
import { refusal, textOf } from './upgrade.mjs';

export async function serve({ apiKey }) {
  const service = createResponsesService({ apiKeys: [apiKey], validateOutgoing: true });
  if (globalThis.Bun) {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request, server) {
        if (request.headers.get('upgrade') !== 'websocket') return service.fetch(request);
        const refused = await refusal(service, request);
        if (refused) return refused;
        return server.upgrade(request, { data: { headers: request.headers } })
          ? undefined
          : new Response('upgrade failed', { status: 400 });
      },
      websocket: {
        open(ws) {
          ws.data.session = service.openSession(ws, { header: (name) => ws.data.headers.get(name) });
        },
        message(ws, message) {
          ws.data.session.receive(textOf(message));
        },
        close(ws) {
          ws.data.session.closed();
        },
      },
    });
    return `http://127.0.0.1:${server.port}`;
  }
  if (globalThis.Deno) {
    const handler = async (request) => {
      if (request.headers.get('upgrade') !== 'websocket') return service.fetch(request);
      const refused = await refusal(service, request);
      if (refused) return refused;
      // Deno closes the request once upgraded: its headers are read from a copy.
      const headers = new Headers(request.headers);
      const { socket, response } = Deno.upgradeWebSocket(request);
      let session;
      socket.onopen = () => {
        session = service.openSession(socket, { header: (name) => headers.get(name) });
      };
      socket.onmessage = (event) => session.receive(textOf(event.data));
      socket.onclose = () => session?.closed();
      return response;
    };
    return await new Promise((resolve) => {
      Deno.serve(
        { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => resolve(`http://127.0.0.1:${port}`) },
        handler,
      );
    });
  }
  throw new Error('this runtime has no Bun.serve or Deno.serve');
}
