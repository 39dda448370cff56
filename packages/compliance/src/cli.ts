#!/usr/bin/env node
// openresponses-compliance (npx openresponses-compliance in the workspace): runs the conformance suite against
// a base URL. Flags, choices and value parsers are declared with commander: a bad value is one line naming
// the flag, exit 2, before any request is made.
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import WebSocket from 'ws';
import { preflight } from './preflight.js';
import { formatJUnit, formatResultLine, formatSummary } from './report.js';
import { formatHtml } from './report-html.js';
import { runSuite, selectTests } from './runner.js';

const name = 'openresponses-compliance';
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const TRANSPORTS = ['http', 'websocket'] as const;

const httpUrl = (text: string) => {
  if (URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)) return text;
  throw new InvalidArgumentError('Expected an http(s) URL such as http://127.0.0.1:8080/v1.');
};
const positiveInteger = (text: string) => {
  if (/^\d+$/.test(text.trim()) && Number(text) > 0) return Number(text);
  throw new InvalidArgumentError('Expected a positive integer.');
};
const commaList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const transports = (text: string) => {
  const list = commaList(text);
  const unknown = list.find((t) => !(TRANSPORTS as readonly string[]).includes(t));
  if (unknown !== undefined || list.length === 0)
    throw new InvalidArgumentError(`Expected ${TRANSPORTS.join(', ')} or both, comma-separated.`);
  return list as Array<(typeof TRANSPORTS)[number]>;
};

const program = new Command(name)
  .description(
    'Checks an Open Responses server against the spec: schemas, event ordering, errors, multi-turn, tools, WebSocket.',
  )
  .version(version, '--version', 'print the version')
  .helpOption('-h, --help', 'print this help')
  .configureOutput({
    // One line: `<name>: <problem> (see <name> --help)`.
    outputError: (text, write) =>
      write(
        `${name}: ${text
          .replace(/^error: /, '')
          .trim()
          .replace(/\s*\n\s*/g, ' ')} (see ${name} --help)\n`,
      ),
  })
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .addOption(new Option('--base-url <URL>', 'the API root, e.g. http://127.0.0.1:8080/v1').argParser(httpUrl))
  .addOption(new Option('--api-key <KEY>', 'bearer key').env('OPENRESPONSES_API_KEY'))
  .option('--model <MODEL>', 'model to ask', 'openresponses-deterministic')
  .option('--filter <IDS>', 'only these test ids or id prefixes, comma-separated', commaList)
  .option('--list', 'print the ids of the tests a run would run (after --filter and --transport), and stop')
  .option('--json', 'print the report as JSON')
  .option('--junit <FILE>', 'also write a JUnit XML report')
  .addOption(
    new Option(
      '--report <FORMAT>',
      'also write a self-contained HTML report: every test, its requests and the streams it saw',
    ).choices(['html']),
  )
  .option('--report-file <FILE>', 'where --report writes', 'openresponses-compliance.html')
  .option('--transport <LIST>', 'http, websocket or both, comma-separated', transports, [...TRANSPORTS])
  .option('--skip-model-dependent', 'skip tests that need the model to cooperate')
  .option(
    '--websocket-connection-limit-ms <MS>',
    "the server's WebSocket connection limit, to wait for it (otherwise ws-connection-limit is skipped)",
    positiveInteger,
  )
  .option(
    '--context-overflow-words <N>',
    "words of input over the model's context window, for the truncation tests (default 140000)",
    positiveInteger,
  )
  .parse();

const values = program.opts<{
  baseUrl?: string;
  apiKey?: string;
  model: string;
  filter?: string[];
  list?: boolean;
  json?: boolean;
  junit?: string;
  report?: 'html';
  reportFile: string;
  transport: Array<(typeof TRANSPORTS)[number]>;
  skipModelDependent?: boolean;
  websocketConnectionLimitMs?: number;
  contextOverflowWords?: number;
}>();
const selected = selectTests({ filter: values.filter, transports: values.transport });
if (selected.length === 0)
  program.error(
    `no test matches --filter ${values.filter?.join(',')} on ${values.transport.join(', ')}; --list shows the ids`,
  );
if (values.list) {
  for (const test of selected) console.log(`${test.id}  ${test.transport}  ${test.description}`);
  process.exit(0);
}
const baseURL = values.baseUrl ?? program.error("required option '--base-url <URL>' not specified");

const problem = await preflight({ baseURL, apiKey: values.apiKey, model: values.model });
if (problem) {
  console.error(`${name}: ${problem}`);
  process.exit(2);
}

const report = await runSuite({
  baseURL,
  apiKey: values.apiKey,
  model: values.model,
  filter: values.filter,
  transports: values.transport,
  skipModelDependent: values.skipModelDependent === true,
  webSocketConnectionLimitMs: values.websocketConnectionLimitMs,
  contextOverflowWords: values.contextOverflowWords,
  WebSocket: WebSocket as never,
  recordExchanges: values.report === 'html',
  // One line per result as it finishes: on stdout for people, on stderr beside --json.
  onProgress: (result) => (values.json ? process.stderr : process.stdout).write(`${formatResultLine(result)}\n`),
});
if (values.junit) writeFileSync(values.junit, formatJUnit(report));
if (values.report === 'html') {
  writeFileSync(values.reportFile, formatHtml(report));
  process.stderr.write(`HTML report: ${values.reportFile}\n`);
}
console.log(values.json ? JSON.stringify(report, null, 2) : `\n${formatSummary(report)}`);
process.exit(report.summary.failed === 0 ? 0 : 1);
