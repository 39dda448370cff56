export { runSuite } from './runner.js';
export { COMPLIANCE_TESTS, type ComplianceTest } from './suite/tests.js';
export { formatTable, formatJUnit } from './report.js';
export type { SuiteConfig, SuiteReport, TestResult, Failure } from './types.js';
