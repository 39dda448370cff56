// The suite against the reference server (all green, both transports) and against deliberately broken
// servers: exactly the expected tests fail, each with the expected rule id.
import { startServer, type RunningServer } from '@openresponses/server/node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { COMPLIANCE_TESTS, formatJUnit, formatTable, runSuite } from '../src/index.js';
import { BROKEN_SERVERS, serveBroken } from './broken-servers.js';

let reference: RunningServer;
beforeAll(async () => {
  reference = await startServer({ apiKeys: ['suite-key'], validateOutgoing: true, warn: () => {} });
});
afterAll(() => reference.close());

test('the reference server passes every test on both transports', async () => {
  const report = await runSuite({
    baseURL: `${reference.url}/v1`,
    apiKey: 'suite-key',
    model: 'openresponses-deterministic',
    WebSocket: WebSocket as never,
  });
  const failures = report.results.filter((r) => r.status !== 'pass');
  expect(failures, formatTable(report)).toEqual([]);
  expect(report.results.map((r) => r.id)).toEqual(COMPLIANCE_TESTS.map((t) => t.id));
  expect(report.results.filter((r) => r.transport === 'websocket').length).toBeGreaterThanOrEqual(6);
});

test('filters, model-dependent skips and the JUnit report', async () => {
  const report = await runSuite({
    baseURL: `${reference.url}/v1`,
    apiKey: 'suite-key',
    model: 'openresponses-deterministic',
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

const expectedFailures: Record<keyof typeof BROKEN_SERVERS, Record<string, string>> = {
  'wrong-order': {
    streaming: 'item-not-added',
    'tool-calling': 'item-not-added',
    'max-output-tokens-incomplete': 'item-not-added',
  },
  'repeated-sequence-numbers': {
    streaming: 'sequence-number-order',
    'tool-calling': 'sequence-number-order',
    'max-output-tokens-incomplete': 'sequence-number-order',
    'stream-error-then-failed': 'sequence-number-order',
  },
  'missing-done': {
    streaming: 'missing-done',
    'tool-calling': 'missing-done',
    'max-output-tokens-incomplete': 'missing-done',
    'stream-error-then-failed': 'missing-done',
  },
  'swallowed-error': { 'stream-error-then-failed': 'error-then-failed' },
  'forgets-previous-response': {
    'previous-response-id': 'previous-response',
    'previous-response-recall': 'recall',
    'store-false-not-retrievable': 'store-false',
    'error-404-previous-response': 'error-404',
  },
  'ignores-allowed-tools': { 'allowed-tools': 'allowed-tools' },
};

describe.each(Object.keys(BROKEN_SERVERS) as Array<keyof typeof BROKEN_SERVERS>)(
  'a server that breaks one rule: %s',
  (name) => {
    test('exactly the expected tests fail, with the expected rule ids', async () => {
      const broken = await serveBroken(name);
      try {
        const report = await runSuite({
          baseURL: broken.baseURL,
          apiKey: 'broken-key',
          model: 'openresponses-deterministic',
          transports: ['http'],
        });
        const failed = Object.fromEntries(
          report.results.filter((r) => r.status === 'fail').map((r) => [r.id, r.failure!.rule]),
        );
        expect(failed, formatTable(report)).toEqual(expectedFailures[name]);
      } finally {
        await broken.close();
      }
    });
  },
);
