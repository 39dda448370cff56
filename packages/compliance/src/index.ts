export { runSuite } from './runner.js';
export { COMPLIANCE_TESTS, type ComplianceTest } from './suite/index.js';
export { formatTable, formatJUnit } from './report.js';
export { formatHtml } from './report-html.js';
export type { SuiteConfig, SuiteReport, TestResult, Failure, Exchange } from './types.js';
