// The compliance catalogue, one module per spec area. Each test keeps its id (reports, --filter and the
// mutation battery name tests by id); the order here is the order of a run and of its report. Most tests need no
// cooperation from the model (a forced tool call is a MUST of tool_choice); the rest are marked modelDependent.
import { BASICS_TESTS } from './basics.js';
import { COMPACTION_TESTS } from './compaction.js';
import type { ComplianceTest } from './context.js';
import { ERRORS_TESTS } from './errors.js';
import { REASONING_TESTS } from './reasoning.js';
import { STATE_TESTS } from './state.js';
import { TOOLS_TESTS } from './tools.js';
import { WEBSOCKET_TESTS } from './websocket.js';

export type { ComplianceTest } from './context.js';

/** Every compliance test, by spec area: basics, tools, state, errors, reasoning, compaction, WebSocket. */
export const COMPLIANCE_TESTS: ComplianceTest[] = [
  ...BASICS_TESTS,
  ...TOOLS_TESTS,
  ...STATE_TESTS,
  ...ERRORS_TESTS,
  ...REASONING_TESTS,
  ...COMPACTION_TESTS,
  ...WEBSOCKET_TESTS,
];
