// The client as a browser app ships it: bundled (esbuild, minified) from the installed tarballs, not
// from the workspace sources, and run in headless Chromium against the real server with CORS.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchChromium } from '../../test-support/chromium.js';
import { installTarballs, packAll } from '../../test-support/tarballs.js';

const work = mkdtempSync(path.join(tmpdir(), 'openresponses-browser-'));
let api: RunningServer;
let site: Server;
let browser: Browser;
let bundleBytes = 0;

beforeAll(async () => {
  const project = path.join(work, 'app');
  await installTarballs(project, await packAll(work));
  const bundle = await build({
    stdin: {
      contents: `export { createClient } from '@openresponses/client';`,
      resolveDir: project,
      loader: 'js',
    },
    absWorkingDir: project,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
  });
  const script = bundle.outputFiles[0]!.text;
  bundleBytes = script.length;
  api = await startServer({ apiKeys: ['browser-key'], cors: true, warn: () => {} });
  const page = `<!doctype html><html><body><pre id="out"></pre><script type="module">
    import { createClient } from '/client.js';
    const client = createClient({ baseURL: ${JSON.stringify(`${api.url}/v1`)}, apiKey: 'browser-key' });
    const stream = await client.responses.stream({ model: 'openresponses-deterministic', input: 'Hello from the tarballs' });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    const final = await stream.finalResponse();
    document.body.dataset.result = JSON.stringify({ text, status: final.status });
  </script></body></html>`;
  site = createServer((req, res) => {
    if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  rmSync(work, { recursive: true, force: true });
});

test('the client bundled from the installed tarballs streams a response in Chromium', async () => {
  // The published client validates with zod mini: its bundle stays small (the size target lives in bench/bundle).
  expect(bundleBytes).toBeGreaterThan(1_000);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/`);
  await page.waitForFunction(() => document.body.dataset.result, undefined, { timeout: 30_000 });
  const result = JSON.parse((await page.evaluate(() => document.body.dataset.result)) ?? '{}');
  expect(errors).toEqual([]);
  expect(result).toEqual({ text: 'You said: "Hello from the tarballs".', status: 'completed' });
}, 60_000);
