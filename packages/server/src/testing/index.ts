/**
 * Test helpers for servers and gateways: fault injection, the turn runner, a hostile upstream that misbehaves
 * on purpose, and scripted answers.
 *
 * @packageDocumentation
 */
export { createRunner } from '../service/service.js';
export type { TurnRunner } from '../responses/runner.js';
export { injectFaults } from './faults.js';
export type { TestFramework } from './framework.js';
export {
  HOSTILE_BEHAVIOURS,
  type HostileBehaviour,
  type HostileExchange,
  type HostileSizes,
  type HostileUpstream,
  type HostileUpstreamOptions,
  type ServedRequest,
  startHostileUpstream,
} from './hostile-upstream.js';
export {
  clientBytesBound,
  describeHostileContract,
  HOSTILE_FIELDS,
  type HostileContractOptions,
  type HostileField,
  type HostileServeRequest,
  type HostileTarget,
  type HostileWire,
  limitsEnv,
  REQUIRED_HOSTILE_FIELDS,
} from './hostile-contract.js';
export {
  anthropicMessagesHostileWire,
  chatCompletionsHostileWire,
  geminiHostileWire,
  HOSTILE_WIRES,
} from './hostile-families.js';
export {
  type HealthFigures,
  type HealthMonitor,
  healthzMs,
  type ProbedServer,
  type ProcessUsage,
  processUsage,
  watch,
} from './server-probe.js';
export { describeTenantIsolation, type IsolationTarget, socketTurn } from './isolation.js';
export { type ReceivedRequest, type ReplayUpstream, startReplayUpstream } from './replay-upstream.js';
export { FAMILY_TYPES } from '../models/routes.js';
export { describeStoreContract, type StoreContractOptions, sampleEntry } from './store-contract.js';
export { describeProviderConformance, type ProviderConformanceOptions } from './provider-conformance.js';
export {
  startScriptedUpstream,
  type ScriptedAnswer,
  type ScriptedCall,
  type ScriptedRequest,
  type ScriptedUpstream,
  type WireAnswer,
  type WireFamily,
} from './scripted-upstream.js';
export {
  anthropicMessagesWire,
  CONFORMANCE_WIRES,
  chatCompletionsWire,
  geminiWire,
} from './conformance-families.js';
export { describeQuotaContract, type QuotaContractOptions } from './quota-contract.js';
export { openResponsesWire, type ResponsesQuirks, responsesWire } from './conformance-open-responses.js';
