// The guest as a Cloudflare Worker (bundled for workerd): `POST /suite` runs the suite, `POST /client` runs
// our client against the reference server named in the body, and every other request goes to the
// fetch-style handler, the way a Worker mounts it.
import { createResponsesHandler } from '@openresponses/server';
import { runClient } from './client.mjs';
import { runSuite } from './suite.mjs';

let handler;

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === '/suite') return Response.json(await runSuite(await request.json()));
    if (pathname === '/client') {
      const { baseURL, apiKey } = await request.json();
      return Response.json(await runClient(baseURL, apiKey));
    }
    handler ??= createResponsesHandler({ apiKeys: [env.API_KEY], validateOutgoing: true });
    return handler(request);
  },
};
