import { TestContext } from './suite/context.js';
import { COMPLIANCE_TESTS, type ComplianceTest } from './suite/index.js';
import { CheckFailed, Skip, type SuiteConfig, type SuiteReport, type TestResult } from './types.js';

/** The tests a run with this config runs, in suite order: its transports (default both) and its filter. */
export function selectTests(
  config: Pick<SuiteConfig, 'filter' | 'transports'>,
  tests: readonly ComplianceTest[] = COMPLIANCE_TESTS,
): ComplianceTest[] {
  const transports = config.transports ?? ['http', 'websocket'];
  return tests.filter(
    (test) =>
      transports.includes(test.transport) &&
      (!config.filter?.length || config.filter.some((f) => test.id === f || test.id.startsWith(f))),
  );
}

/** Runs the suite against a server and returns a report; never throws for a failing server. */
export async function runSuite(
  config: SuiteConfig,
  tests: readonly ComplianceTest[] = COMPLIANCE_TESTS,
): Promise<SuiteReport> {
  const context = new TestContext({ ...config, baseURL: config.baseURL.replace(/\/+$/, '') });
  const selected = selectTests(config, tests);
  const results: TestResult[] = [];
  for (const test of selected) {
    const started = performance.now();
    const base = { id: test.id, description: test.description, transport: test.transport };
    context.exchanges = [];
    let result: TestResult;
    if (test.modelDependent && config.skipModelDependent) {
      result = { ...base, status: 'skip', ms: 0, skipReason: 'needs model cooperation (--skip-model-dependent)' };
    } else {
      try {
        await test.run(context);
        result = { ...base, status: 'pass', ms: Math.round(performance.now() - started) };
      } catch (error) {
        const ms = Math.round(performance.now() - started);
        if (error instanceof Skip) result = { ...base, status: 'skip', ms, skipReason: error.message };
        else if (error instanceof CheckFailed)
          result = { ...base, status: 'fail', ms, failure: { rule: error.rule, message: error.message } };
        else
          result = { ...base, status: 'fail', ms, failure: { rule: 'exception', message: (error as Error).message } };
      }
    }
    if (config.recordExchanges) result.exchanges = context.exchanges;
    results.push(result);
    config.onProgress?.(result);
  }
  return {
    baseURL: config.baseURL,
    results,
    summary: {
      passed: results.filter((r) => r.status === 'pass').length,
      failed: results.filter((r) => r.status === 'fail').length,
      skipped: results.filter((r) => r.status === 'skip').length,
    },
  };
}
