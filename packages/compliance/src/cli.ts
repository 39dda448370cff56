#!/usr/bin/env node
// openresponses-compliance --base-url URL [--api-key K] [--model M] [--filter ids] [--json] [--junit FILE]
//   [--transport http,websocket] [--skip-model-dependent]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { formatJUnit, formatTable } from './report.js';
import { runSuite } from './runner.js';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    model: { type: 'string', default: 'openresponses-deterministic' },
    filter: { type: 'string' },
    json: { type: 'boolean', default: false },
    junit: { type: 'string' },
    transport: { type: 'string', default: 'http,websocket' },
    'skip-model-dependent': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || !values['base-url']) {
  console.log(
    'usage: openresponses-compliance --base-url URL [--api-key K] [--model M] [--filter id,id] [--json] [--junit FILE] [--transport http,websocket] [--skip-model-dependent]',
  );
  process.exit(values.help ? 0 : 2);
}
const transports = values.transport!.split(',').map((t) => t.trim()) as Array<'http' | 'websocket'>;
const report = await runSuite({
  baseURL: values['base-url'],
  apiKey: values['api-key'] ?? process.env.OPENRESPONSES_API_KEY,
  model: values.model!,
  filter: values.filter
    ?.split(',')
    .map((f) => f.trim())
    .filter(Boolean),
  transports,
  skipModelDependent: values['skip-model-dependent'],
  WebSocket: WebSocket as never,
  onProgress: (result) =>
    process.stderr.write(
      `${result.status === 'pass' ? '✓' : result.status === 'skip' ? '-' : '✗'} ${result.id} (${result.ms} ms)\n`,
    ),
});
if (values.junit) writeFileSync(values.junit, formatJUnit(report));
console.log(values.json ? JSON.stringify(report, null, 2) : formatTable(report));
process.exit(report.summary.failed === 0 ? 0 : 1);
