/**
 * The conformance suite for any Open Responses server: `runSuite` runs the tests (streams through the stream
 * checker, `previous_response_id`, tools, errors, WebSocket), and the formatters report them as a table,
 * JUnit or HTML. The `openresponses-compliance` CLI runs the same.
 *
 * @packageDocumentation
 */
export { runSuite, selectTests } from './runner.js';
export { COMPLIANCE_TESTS, type ComplianceTest } from './suite/index.js';
export { formatJUnit, formatResultLine, formatSummary, formatTable } from './report.js';
export { formatHtml } from './report-html.js';
export type { SuiteConfig, SuiteReport, TestResult, Failure, Exchange } from './types.js';
