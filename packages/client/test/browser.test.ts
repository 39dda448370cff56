// The client bundle in headless Chromium (Debian's chromium, driven by playwright-core) against the real
// server with CORS enabled, from another origin: a response streams in the page. `.ci/run` installs
// chromium; without it the test is skipped locally and fails in CI.
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../../../test-support/chromium.js';

const available = chromiumAvailable();
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for this test`);

let api: RunningServer;
let site: Server;
let siteUrl: string;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  api = await startServer({ apiKeys: ['browser-key'], cors: true, warn: () => {} });
  const bundle = await build({
    entryPoints: [path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@openresponses/source'],
    write: false,
  });
  const script = bundle.outputFiles[0]!.text;
  const page = `<!doctype html><html><body><pre id="out"></pre><script type="module">
    import { createClient } from '/client.js';
    const client = createClient({ baseURL: ${JSON.stringify(`${api.url}/v1`)}, apiKey: 'browser-key' });
    const stream = await client.responses.stream({ model: 'openresponses-deterministic', input: 'Hello from a browser' });
    let text = '', events = 0;
    for await (const event of stream) { events++; if (event.type === 'response.output_text.delta') { text += event.delta; document.getElementById('out').textContent = text; } }
    const final = await stream.finalResponse();
    document.body.dataset.result = JSON.stringify({ text, events, status: final.status });
  </script></body></html>`;
  site = createServer((req, res) => {
    if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

test.skipIf(!available)(
  'a response streams in the page, cross-origin with CORS',
  async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(siteUrl);
    await page.waitForFunction(() => document.body.dataset.result, undefined, { timeout: 30_000 });
    const result = JSON.parse((await page.evaluate(() => document.body.dataset.result)) ?? '{}') as {
      text: string;
      events: number;
      status: string;
    };
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ text: 'You said: "Hello from a browser".', status: 'completed' });
    expect(result.events).toBeGreaterThan(8);
    expect(await page.textContent('#out')).toBe('You said: "Hello from a browser".');
  },
  60_000,
);
