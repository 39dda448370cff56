export { runSuite, selectTests } from './runner.js';
export { COMPLIANCE_TESTS, type ComplianceTest } from './suite/index.js';
export { formatJUnit, formatResultLine, formatSummary, formatTable } from './report.js';
export { formatHtml } from './report-html.js';
export type { SuiteConfig, SuiteReport, TestResult, Failure, Exchange } from './types.js';
