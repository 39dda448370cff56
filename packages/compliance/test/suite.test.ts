// The suite against the reference server (all green, both transports) and against deliberately broken
// servers (test/mutants.ts): each is caught by the tests it names, with the rule ids it names. The whole
// suite against every mutant is `npm run mutation` (test/mutation.ts), not part of npm test.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { COMPLIANCE_TESTS, formatJUnit, formatTable, runSuite } from '../src/index.js';
import { MUTANT_API_KEY, MUTANTS, serve, type ServedServer } from './mutants.js';

const LIMIT_MS = 400;
const config = (baseURL: string) => ({
  baseURL,
  apiKey: MUTANT_API_KEY,
  model: 'openresponses-deterministic',
  WebSocket: WebSocket as never,
});

let reference: ServedServer;
beforeAll(async () => {
  reference = await serve();
});
afterAll(() => reference.close());

test('the reference server passes every test on both transports', async () => {
  const report = await runSuite({ ...config(reference.baseURL), filter: undefined });
  const notPassed = report.results.filter((r) => r.status !== 'pass' && r.id !== 'ws-connection-limit');
  expect(notPassed, formatTable(report)).toEqual([]);
  expect(report.results.map((r) => r.id)).toEqual(COMPLIANCE_TESTS.map((t) => t.id));
  expect(report.results.filter((r) => r.transport === 'websocket').length).toBeGreaterThanOrEqual(12);
});

test('the reference server reports the WebSocket connection limit', async () => {
  const limited = await serve(undefined, { connectionLimitMs: LIMIT_MS });
  try {
    const report = await runSuite({
      ...config(limited.baseURL),
      filter: ['ws-connection-limit'],
      webSocketConnectionLimitMs: LIMIT_MS,
    });
    expect(
      report.results.map((r) => [r.id, r.status]),
      formatTable(report),
    ).toEqual([['ws-connection-limit', 'pass']]);
  } finally {
    await limited.close();
  }
});

test('filters, model-dependent skips and the JUnit report', async () => {
  const report = await runSuite({
    ...config(reference.baseURL),
    filter: ['previous-response', 'error-401'],
    skipModelDependent: true,
    transports: ['http'],
  });
  expect(report.results.map((r) => [r.id, r.status])).toEqual([
    ['previous-response-id', 'pass'],
    ['previous-response-recall', 'skip'],
    ['error-401', 'pass'],
  ]);
  expect(formatJUnit(report)).toMatch(/<testsuite name="openresponses-compliance" tests="3" failures="0" skipped="1">/);
});

describe.each(MUTANTS.map((m) => [m.id, m] as const))('a server with one bug: %s', (_id, mutant) => {
  test(`caught by ${Object.keys(mutant.caughtBy).join(', ')} with the expected rule ids`, async () => {
    const usesLimit = 'ws-connection-limit' in mutant.caughtBy;
    const broken = await serve(mutant, usesLimit ? { connectionLimitMs: LIMIT_MS } : {});
    try {
      const report = await runSuite({
        ...config(broken.baseURL),
        filter: Object.keys(mutant.caughtBy),
        ...(usesLimit ? { webSocketConnectionLimitMs: LIMIT_MS } : {}),
      });
      const failed = Object.fromEntries(
        report.results.filter((r) => r.status === 'fail').map((r) => [r.id, r.failure!.rule]),
      );
      expect(failed, formatTable(report)).toEqual(mutant.caughtBy);
    } finally {
      await broken.close();
    }
  });
});

test('every compliance test and every stream rule is in the README requirements table', async () => {
  const { readFileSync } = await import('node:fs');
  const { STREAM_RULES } = await import('@openresponses/events');
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const missing = [...COMPLIANCE_TESTS.map((t) => t.id), ...Object.keys(STREAM_RULES)].filter(
    (id) => !readme.includes(`\`${id}\``),
  );
  expect(missing).toEqual([]);
});
