// The probes the hostile suites judge a server by: a /healthz whose connection failed before any answer is sent
// once more (a pooled keep-alive socket can close under it, whatever the server does); anything else is not, and
// the monitor says why its last probe got no answer. The monitor probes from a thread of its own: a server that
// blocks its loop past the contract's stall bound fails it, a busy one that keeps serving passes, the test
// process's own busy loop is not charged to the server, and the thread ends with the monitor.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { STALL_CPU_MS } from '../src/testing/hostile-contract.js';
import { healthzMs, processUsage, watch } from '../src/testing/index.js';

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
  // One probe in the test (the next a minute later): with probes 10 ms apart, `stop` could end one between its
  // request and the one more, and the count of requests was odd (CI 83).
  const monitor = watch({ url: target.url, pid: process.pid }, 60_000);
  await expect.poll(async () => (await monitor.figures()).unansweredHealthz, { timeout: 30_000 }).toBeGreaterThan(0);
  const { lastFailure } = await monitor.figures();
  await monitor.stop();
  expect(target.requests()).toBe(2);
  expect(lastFailure).toMatch(/^fetch failed \(UND_ERR_SOCKET: other side closed\) after \d+ ms, then fetch failed/);
});

test('an answer that is not 200 is not sent again', async () => {
  const target = await flaky(0, 503);
  expect(await healthzMs(target.url)).toBe(Infinity);
  expect(target.requests()).toBe(1);
});

/**
 * A server in a process of its own: /healthz answers; `/block?ms=N` computes N ms of CPU time without yielding
 * (a stalled loop); `/busy?ms=N` computes as long in 5 ms slices, serving other requests between them. CPU time
 * as the monitor reads it, user and system: a spin reads the clock by a system call each turn, which is most of
 * its time (counting user time alone, 1 ms of it cost 3.4 ms of CPU).
 */
const SERVER = `
const cpuMs = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };
const spin = (ms) => { const until = cpuMs() + ms; while (cpuMs() < until); };
const server = require('node:http').createServer((request, response) => {
  const url = new URL(request.url, 'http://x');
  const ms = Number(url.searchParams.get('ms'));
  const done = () => response.end('{"status":"ok"}');
  if (url.pathname === '/block') { spin(ms); return done(); }
  if (url.pathname !== '/busy') return done();
  const until = cpuMs() + ms;
  const slice = () => { spin(5); if (cpuMs() < until) setImmediate(slice); else done(); };
  slice();
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;

describe('the monitor judges the server from a thread of its own', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk))));
    url = `http://127.0.0.1:${port.trim()}`;
  });
  afterAll(() => {
    child?.kill();
  });

  /** The busiest /healthz CPU time while the server runs `path`, probing every `everyMs`; `meanwhile` runs here. */
  async function busiestWhile(path: string, everyMs: number, meanwhile = () => {}): Promise<number> {
    // A probe may wait as long as the machine's load makes the server's computing take.
    const monitor = watch({ url, pid: child.pid! }, everyMs, 300_000);
    try {
      await expect.poll(async () => (await monitor.figures()).probes).toBeGreaterThan(0);
      monitor.reset();
      const answered = fetch(`${url}${path}`).then((response) => response.text());
      // Once the server has started on it (its CPU time moved), so `meanwhile` runs while it computes.
      const before = processUsage(child.pid!)!.cpuMs;
      await expect.poll(() => processUsage(child.pid!)!.cpuMs, { interval: 5 }).toBeGreaterThan(before + 20);
      meanwhile();
      await answered;
      const figures = await monitor.figures();
      expect(figures.unansweredHealthz, figures.lastFailure).toBe(0);
      return figures.busiestHealthzCpuMs;
    } finally {
      await monitor.stop();
    }
  }

  test('a server that blocks its loop past the stall bound fails it; one that computes in slices, serving between them, passes', async () => {
    expect(await busiestWhile(`/block?ms=${STALL_CPU_MS + 1_000}`, 10)).toBeGreaterThanOrEqual(STALL_CPU_MS);
    // Twice the bound it must stay under, so a probe charged with all of it fails (a monitor counting from its
    // start, or a probe answered only once the work is done).
    expect(await busiestWhile(`/busy?ms=${STALL_CPU_MS / 2}`, 10)).toBeLessThan(STALL_CPU_MS / 4);
  }, 300_000);

  test("the test process's own busy loop is not charged to the server", async () => {
    // The test's thread blocked until the server, computing and serving meanwhile, has spent 1.5 s of CPU time
    // (in CPU time, so whatever the machine's load): a probe whose answer waited for this thread would be charged
    // all of it.
    const block = () => {
      const until = processUsage(child.pid!)!.cpuMs + 1_500;
      while (processUsage(child.pid!)!.cpuMs < until);
    };
    const busiest = await busiestWhile('/busy?ms=2500', 1, block);
    console.log(`busiest /healthz CPU while this thread was blocked: ${busiest} ms`);
    expect(busiest).toBeLessThan(750);
  }, 300_000);

  test('the probing thread ends with the monitor', async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    const monitor = watch({ url, pid: child.pid! }, 10);
    await expect.poll(async () => (await monitor.figures()).probes).toBeGreaterThan(0);
    expect(threads()).toBeGreaterThan(before);
    await monitor.stop();
    await expect.poll(threads).toBe(before);
  });
});
