#!/usr/bin/env node
// openresponses-compliance (npx @openresponses/compliance): runs the conformance suite against a base URL.
// Add a flag by adding one entry to `options`.
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { exitWithUsageError, parseCommandLine } from './command-line.js';
import { formatJUnit, formatTable } from './report.js';
import { formatHtml } from './report-html.js';
import { runSuite } from './runner.js';

const name = 'openresponses-compliance';
const values = parseCommandLine({
  name,
  packageJson: new URL('../package.json', import.meta.url),
  summary:
    'Checks an Open Responses server against the spec: schemas, event ordering, errors, multi-turn, tools, WebSocket.',
  options: {
    'base-url': {
      type: 'string',
      placeholder: 'URL',
      description: 'the API root, e.g. http://127.0.0.1:8080/v1 (required)',
    },
    'api-key': { type: 'string', placeholder: 'KEY', env: 'OPENRESPONSES_API_KEY', description: 'bearer key' },
    model: { type: 'string', placeholder: 'MODEL', description: 'model to ask (default openresponses-deterministic)' },
    filter: { type: 'string', placeholder: 'IDS', description: 'only these test ids or id prefixes, comma-separated' },
    json: { type: 'boolean', description: 'print the report as JSON' },
    junit: { type: 'string', placeholder: 'FILE', description: 'also write a JUnit XML report' },
    report: {
      type: 'string',
      placeholder: 'html',
      description: 'also write a self-contained HTML report: every test, its requests and the streams it saw',
    },
    'report-file': {
      type: 'string',
      placeholder: 'FILE',
      description: 'where --report writes (default openresponses-compliance.html)',
    },
    transport: { type: 'string', placeholder: 'LIST', description: 'http,websocket (default both)' },
    'skip-model-dependent': { type: 'boolean', description: 'skip tests that need the model to cooperate' },
    'websocket-connection-limit-ms': {
      type: 'string',
      placeholder: 'MS',
      description: "the server's WebSocket connection limit, to wait for it (otherwise ws-connection-limit is skipped)",
    },
    'context-overflow-words': {
      type: 'string',
      placeholder: 'N',
      description: "words of input over the model's context window, for the truncation tests (default 140000)",
    },
  },
});
const baseURL = values['base-url'];
if (!baseURL) exitWithUsageError(name, 'missing --base-url URL');
if (!URL.canParse(baseURL) || !/^https?:$/.test(new URL(baseURL).protocol))
  exitWithUsageError(name, `--base-url '${baseURL}' is not an http(s) URL`);
if (values.report !== undefined && values.report !== 'html')
  exitWithUsageError(name, `unknown report format '${values.report}' (html)`);
const transports = (values.transport ?? 'http,websocket').split(',').map((t) => t.trim());
const unknownTransport = transports.find((t) => t !== 'http' && t !== 'websocket');
if (unknownTransport) exitWithUsageError(name, `unknown transport '${unknownTransport}' (http, websocket)`);

/** A positive integer flag, or undefined when absent (a usage error otherwise). */
function positive(flag: 'websocket-connection-limit-ms' | 'context-overflow-words'): number | undefined {
  const text = values[flag];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) exitWithUsageError(name, `--${flag} '${text}' is not a positive integer`);
  return value;
}

const webSocketConnectionLimitMs = positive('websocket-connection-limit-ms');
const contextOverflowWords = positive('context-overflow-words');

// One clear message instead of every test failing on the same connection error.
try {
  await fetch(baseURL, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
} catch (error) {
  const reason = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
  console.error(`${name}: cannot reach ${baseURL}: ${reason}`);
  process.exit(1);
}

const report = await runSuite({
  baseURL,
  apiKey: values['api-key'],
  model: values.model ?? 'openresponses-deterministic',
  filter: values.filter
    ?.split(',')
    .map((f) => f.trim())
    .filter(Boolean),
  transports: transports as Array<'http' | 'websocket'>,
  skipModelDependent: values['skip-model-dependent'],
  webSocketConnectionLimitMs,
  contextOverflowWords,
  WebSocket: WebSocket as never,
  recordExchanges: values.report === 'html',
  onProgress: (result) =>
    process.stderr.write(
      `${result.status === 'pass' ? '✓' : result.status === 'skip' ? '-' : '✗'} ${result.id} (${result.ms} ms)\n`,
    ),
});
if (values.junit) writeFileSync(values.junit, formatJUnit(report));
if (values.report === 'html') {
  const file = values['report-file'] ?? 'openresponses-compliance.html';
  writeFileSync(file, formatHtml(report));
  process.stderr.write(`HTML report: ${file}\n`);
}
console.log(values.json ? JSON.stringify(report, null, 2) : formatTable(report));
process.exit(report.summary.failed === 0 ? 0 : 1);
