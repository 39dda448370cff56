// The playground page in real Chromium (Debian's, with playwright-core) against the real server: a
// prompt streams over HTTP and over WebSocket into the timeline, a conversation continues with
// previous_response_id, and a pasted broken recording shows the violated rule on the offending event.
// Screenshots land in packages/server/.tmp/playground/ (gitignored).
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { launchChromium } from '../../../test-support/chromium.js';
import type { RunningServer } from '../src/node/index.js';
import { API_KEY, startTestServer } from './harness.js';

const screenshots = path.resolve(import.meta.dirname, '../.tmp/playground');
const recording = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, `../../events/test/__fixtures__/${name}`), 'utf8');

let server: RunningServer;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  server = await startTestServer({ playground: true });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  // The key travels in the fragment, which the browser never sends to the server.
  await page.goto(`${server.url}/#key=${API_KEY}`);
  await page.waitForSelector('body[data-state="ready"]');
});

/** Sends the prompt and waits until the stream ended and the page says so. */
async function send(prompt: string, transport: 'http' | 'websocket' = 'http') {
  await page.check(`input[name="transport"][value="${transport}"]`);
  await page.fill('#prompt', prompt);
  await page.click('#send');
  await page.waitForSelector('body[data-state="done"]', { timeout: 20_000 }).catch(async (error: Error) => {
    throw new Error(
      `${error.message}; status: ${await page.textContent('#status')}; ${await page.textContent('#final')}`,
    );
  });
}

const eventTypes = () => page.$$eval('#events tr', (rows) => rows.map((row) => (row as HTMLElement).dataset.type));
const failedRules = () =>
  page.$$eval('#rules li.fail', (items) => items.map((item) => (item as HTMLElement).dataset.rule));

describe('playground page', () => {
  test('the page and its script are served with a strict policy, without a key', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await response.text()).toContain('content="/v1"');
    const script = await fetch(`${server.url}/playground.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await script.text()).length).toBeGreaterThan(10_000);
  });

  test('a prompt streams over HTTP into the answer, the timeline, the tree and the checker', async () => {
    await send('Hello! My name is Ada. [think]');
    expect(await page.textContent('#answer-text')).toContain('Ada');
    const types = await eventTypes();
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(await failedRules()).toEqual([]);
    expect(await page.$$eval('#rules li.pass', (items) => items.length)).toBeGreaterThan(20);
    // Reasoning, then the message: both closed in the tree.
    expect(await page.$$eval('#tree > li', (items) => items.map((item) => item.className))).toEqual(['done', 'done']);
    expect(await page.textContent('#final')).toContain('completed');
    await page.screenshot({ path: path.join(screenshots, 'http-stream.png'), fullPage: true });

    // The next turn continues the conversation with previous_response_id.
    await page.check('#continue');
    await send('What is my name?');
    expect(await page.textContent('#answer-text')).toContain('Ada');
    expect(await failedRules()).toEqual([]);
  });

  test('a prompt streams over WebSocket, the key offered as a subprotocol', async () => {
    await send('Hello over a socket', 'websocket');
    const types = await eventTypes();
    expect(types.at(-1)).toBe('response.completed');
    expect(await page.textContent('#answer-text')).toContain('Hello over a socket');
    expect(await failedRules()).toEqual([]);
    await page.screenshot({ path: path.join(screenshots, 'websocket-stream.png'), fullPage: true });
  });

  test('a pasted broken recording shows the violated rule on the offending event', async () => {
    await page.fill('#recording', recording('repeated-sequence-numbers.sse'));
    await page.click('#inspect');
    await page.waitForSelector('body[data-state="done"]');
    expect(await failedRules()).toContain('sequence-number-order');
    const flagged = await page.$$eval('#events tr.violation', (rows) =>
      rows.map((row) => ({ index: (row as HTMLElement).dataset.index, rules: (row as HTMLElement).dataset.rules })),
    );
    // The sixth event (index 5) is the first to repeat sequence number 4.
    expect(flagged[0]).toMatchObject({ index: '5', rules: expect.stringContaining('sequence-number-order') });
    await page.click('#rules li.fail[data-rule="sequence-number-order"]');
    expect(await page.$eval('#events tr.selected', (row) => (row as HTMLElement).dataset.index)).toBe('5');
    await page.screenshot({ path: path.join(screenshots, 'broken-recording.png'), fullPage: true });
  });

  test('a request the server refuses is shown, not thrown', async () => {
    await page.fill('#tools', '{"not": "an array"}');
    await page.fill('#prompt', 'hi');
    await page.click('#send');
    await page.waitForSelector('body[data-state="error"]');
    expect(await page.textContent('#status')).toContain('Tools must be a JSON array');
  });

  afterAll(() => {
    expect(problems).toEqual([]);
  });
});
