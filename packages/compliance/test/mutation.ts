// npm run mutation — how strong is the compliance suite? Runs the whole suite (HTTP and WebSocket) against the
// reference server and against every deliberately broken server of test/mutants.ts, with
// all tests and with --skip-model-dependent, and prints the share of injected bugs caught in each mode.
// Every injected bug is wire-visible (the mutants change only what a client can observe). Not part of npm test:
// it runs the suite about a hundred times (about a minute).
import WebSocket from 'ws';
import { type SuiteReport, runSuite } from '../src/index.js';
import { MUTANT_API_KEY, MUTANTS, type Mutant, serve } from './mutants.js';

const LIMIT_MS = 400;

/** The whole suite, plus the connection-limit test against a short-limit instance of the same server. */
async function suite(mutant: Mutant | undefined, skipModelDependent: boolean): Promise<SuiteReport['results']> {
  const config = {
    apiKey: MUTANT_API_KEY,
    model: 'openresponses-deterministic',
    WebSocket: WebSocket as never,
    skipModelDependent,
  };
  const server = await serve(mutant);
  const limited = await serve(mutant, { connectionLimitMs: LIMIT_MS });
  try {
    const main = await runSuite({ ...config, baseURL: server.baseURL });
    const limit = await runSuite({
      ...config,
      baseURL: limited.baseURL,
      filter: ['ws-connection-limit'],
      webSocketConnectionLimitMs: LIMIT_MS,
    });
    return [...main.results.filter((r) => r.id !== 'ws-connection-limit'), ...limit.results];
  } finally {
    await Promise.all([server.close(), limited.close()]);
  }
}

const failures = (results: SuiteReport['results']) => results.filter((r) => r.status === 'fail');

const referenceAll = await suite(undefined, false);
const referenceFailures = failures(referenceAll);
console.log(
  `reference server: ${referenceAll.filter((r) => r.status === 'pass').length} of ${referenceAll.length} tests pass` +
    (referenceFailures.length ? ` — FAILING: ${referenceFailures.map((r) => r.id).join(', ')}` : ''),
);

const rows: Array<{ id: string; bug: string; all: string; skip: string }> = [];
let caughtAll = 0;
let caughtSkip = 0;
for (const mutant of MUTANTS) {
  const all = failures(await suite(mutant, false));
  const skip = failures(await suite(mutant, true));
  if (all.length) caughtAll++;
  if (skip.length) caughtSkip++;
  const first = (found: typeof all) => (found[0] ? `${found[0].id} [${found[0].failure!.rule}]` : 'MISSED');
  rows.push({ id: mutant.id, bug: mutant.bug, all: first(all), skip: first(skip) });
  process.stderr.write(`${all.length ? '✓' : '✗'} ${mutant.id}\n`);
}

const width = Math.max(...rows.map((r) => r.id.length));
const allWidth = Math.max(...rows.map((r) => r.all.length));
console.log(`\n${'mutant'.padEnd(width)}  ${'all tests: first failure'.padEnd(allWidth)}  --skip-model-dependent`);
for (const row of rows) console.log(`${row.id.padEnd(width)}  ${row.all.padEnd(allWidth)}  ${row.skip}`);
const percent = (n: number) => `${((100 * n) / MUTANTS.length).toFixed(0)}%`;
console.log(
  `\ncaught: ${caughtAll} of ${MUTANTS.length} (${percent(caughtAll)}) with all tests, ` +
    `${caughtSkip} of ${MUTANTS.length} (${percent(caughtSkip)}) with --skip-model-dependent`,
);
process.exit(referenceFailures.length === 0 && caughtAll / MUTANTS.length >= 0.9 ? 0 : 1);
