// The probes the hostile suites judge a server by: a /healthz whose connection failed before any answer is sent
// once more (a pooled keep-alive socket can close under it, whatever the server does); anything else is not, and
// the monitor says why its last probe got no answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { healthzMs, watch } from '../src/testing/index.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server whose first `drops` requests lose their connection before any answer, then answers `status`. */
async function flaky(drops: number, status = 200): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  server = createServer((request, response) => {
    if (++requests <= drops) request.socket.destroy();
    else response.writeHead(status, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

test('a probe whose connection failed before any answer is sent once more', async () => {
  const target = await flaky(1);
  expect(await healthzMs(target.url)).toBeLessThan(Infinity);
  expect(target.requests()).toBe(2);
});

test('only once: a server that drops every request is unanswered, and the monitor says why', async () => {
  const target = await flaky(Infinity);
  const monitor = watch({ url: target.url, rss: () => 0, cpuMs: () => 0, alive: () => true }, 10);
  await expect.poll(() => monitor.unansweredHealthz).toBeGreaterThan(0);
  await monitor.stop();
  expect(target.requests() % 2).toBe(0);
  expect(monitor.lastFailure).toMatch(
    /^fetch failed \(UND_ERR_SOCKET: other side closed\) after \d+ ms, then fetch failed/,
  );
});

test('an answer that is not 200 is not sent again', async () => {
  const target = await flaky(0, 503);
  expect(await healthzMs(target.url)).toBe(Infinity);
  expect(target.requests()).toBe(1);
});
