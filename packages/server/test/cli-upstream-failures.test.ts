// The real CLI in front of upstreams that fail at the transport: a refused port (502), one that answers 503
// (503, with its retry-after), one that hangs past --upstream-idle-ms (504); each a spec-shaped server_error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCli } from './cli-process.js';

const servers: Server[] = [];
const listen = async (handler: Parameters<typeof createServer>[1]) => {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
};
/** A port that was free a moment ago: nothing listens on it, so connections are refused. */
const refusedUrl = async () => {
  const url = await listen(() => undefined);
  const server = servers.pop()!;
  await new Promise((resolve) => server.close(resolve));
  return url;
};

let unavailable: string;
let hanging: string;
beforeAll(async () => {
  unavailable = await listen((_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' });
    response.end(JSON.stringify({ error: { message: 'warming up' } }));
  });
  // Reads the request and never answers.
  hanging = await listen(() => undefined);
});
afterAll(() => {
  for (const server of servers) server.closeAllConnections();
  for (const server of servers) server.close();
});

async function ask(responsesUrl: string, extra: string[] = []) {
  const { url } = await startCli(['--port', '0', '--api-key', 'k', '--responses-url', responsesUrl, ...extra]);
  return fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify({ model: 'upstream-model', input: 'hi' }),
  });
}

describe('the CLI answers upstream transport failures with 502 / 503 / 504', () => {
  test('an upstream port that refuses: 502 server_error upstream_unavailable, naming the refusal', async () => {
    const response = await ask(await refusedUrl());
    expect(response.status).toBe(502);
    const { error } = await response.json();
    expect(error).toMatchObject({ type: 'server_error', code: 'upstream_unavailable', param: null });
    expect(error.message).toContain('ECONNREFUSED');
  });

  test("an upstream that answers 503: 503 server_error upstream_overloaded, with the upstream's retry-after", async () => {
    const response = await ask(unavailable);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
    const { error } = await response.json();
    expect(error).toMatchObject({ type: 'server_error', code: 'upstream_overloaded', param: null });
    expect(error.message).toContain('warming up');
  });

  test('an upstream that hangs past --upstream-idle-ms: 504 server_error upstream_timeout', async () => {
    const response = await ask(hanging, ['--upstream-idle-ms', '300']);
    expect(response.status).toBe(504);
    expect((await response.json()).error).toMatchObject({ type: 'server_error', code: 'upstream_timeout' });
  });
});
