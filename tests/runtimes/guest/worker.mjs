// The guest as a Cloudflare Worker (bundled for workerd): `POST /suite` runs the suite, `POST /client` runs
// our client against the reference server named in the body, and every other request goes to the
// service: HTTP through its fetch handler, WebSocket upgrades through its session.
import { createResponsesService } from '@openresponses/server';
import { runClient } from './client.mjs';
import { runSuite } from './suite.mjs';
import { refusal, textOf } from './upgrade.mjs';

let service;

/** A WebSocket upgrade the Worker way: a WebSocketPair, the server end driven by the service's session. */
async function upgrade(request) {
  const refused = await refusal(service, request);
  if (refused) return refused;
  const [client, server] = Object.values(new WebSocketPair());
  server.accept();
  const session = service.openSession(server, { header: (name) => request.headers.get(name) });
  server.addEventListener('message', (event) => session.receive(textOf(event.data)));
  server.addEventListener('close', () => session.closed());
  return new Response(null, { status: 101, webSocket: client });
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === '/suite') return Response.json(await runSuite(await request.json()));
    if (pathname === '/client') {
      const { baseURL, apiKey } = await request.json();
      return Response.json(await runClient(baseURL, apiKey));
    }
    service ??= createResponsesService({ apiKeys: [env.API_KEY], validateOutgoing: true });
    if (request.headers.get('upgrade') === 'websocket') return upgrade(request);
    return service.fetch(request);
  },
};
