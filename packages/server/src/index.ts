/**
 * The reference Open Responses server for any runtime with web `Request`/`Response`:
 * `createResponsesHandler`, the embedded deterministic model, the gateway providers (Chat Completions,
 * Anthropic Messages, Gemini, Responses), stores, tenants and quotas.
 *
 * @packageDocumentation
 */
export {
  createResponsesHandler,
  createResponsesService,
  type ResponsesService,
  type ResponsesServiceOptions,
} from './service/service.js';
export type { ServiceRequest, ServiceResponse, ServiceEventStream } from './exchange.js';
export type { RequestLog } from './handler/middleware.js';
export type { TelemetryOptions } from './service/telemetry.js';
export type { TurnFacts, TurnFailure } from './telemetry/attributes.js';
export { Cancellation } from './cancellation.js';
export { ResponsesError, ERROR_STATUS, type ErrorType } from './errors.js';
export { DeterministicModel, DETERMINISTIC_MODEL, TRIGGERS } from './models/deterministic.js';
export {
  ChatCompletionsProvider,
  toChatRequest,
  type ChatCompletionsProviderOptions,
  type ChatRequestSettings,
} from './models/chat-completions/index.js';
export {
  AnthropicMessagesProvider,
  toAnthropicRequest,
  type AnthropicMessagesProviderOptions,
  type AnthropicRequestSettings,
} from './models/anthropic-messages/index.js';
export {
  GeminiProvider,
  toGeminiRequest,
  toGeminiSchema,
  type GeminiProviderOptions,
  type GeminiRequestSettings,
} from './models/gemini/index.js';
export {
  OpenResponsesProvider,
  type OpenResponsesProviderOptions,
  toResponsesRequest,
  type ResponsesRequestSettings,
} from './models/open-responses/index.js';
export type {
  UpstreamAbort,
  UpstreamBodyReader,
  UpstreamFetch,
  UpstreamProviderOptions,
  UpstreamRequestInit,
  UpstreamResponse,
} from './models/upstream.js';
export {
  UpstreamModelProvider,
  type RoutedProviderOptions,
  type UpstreamFamilyDefaults,
} from './models/upstream-provider.js';
export { ScenarioProvider } from './models/scenarios.js';
export {
  ScenarioFileError,
  SCENARIO_MODEL,
  parseScenarioFile,
  scenarioFileFromText,
  type ParsedScenarioFile,
  type Scenario,
  type ScenarioFile,
  type ScenarioOutput,
} from './models/scenario-file.js';
export { ScenarioRecorder, type RecordedScenario, type ScenarioRecorderOptions } from './models/recording.js';
export {
  Redactor,
  credentialHeaderValues,
  retryAfterSeconds,
  upstreamRetryHeaders,
  MAX_RETRY_AFTER_SECONDS,
} from './redaction.js';
export {
  providersFromConfig,
  gatewayConfigSchema,
  GatewayConfigError,
  type GatewayConfig,
  type GatewayRoute,
  type GatewayFallbackRouteInput,
  type GatewayRouteInput,
  type GatewayUpstreamInput,
} from './models/routes.js';
export {
  defineFamily,
  ROUTE_FIELDS,
  routeServes,
  upstreamModelOf,
  type ModelRoute,
  type ProviderFamily,
  type RouteFields,
  type UpstreamAccess,
} from './models/family.js';
export {
  LOGPROBS_INCLUDE,
  type FinishReason,
  type ModelPart,
  type ModelProvider,
  type ModelRequest,
  type ModelUsage,
  type ReasoningState,
  type ToolPolicy,
} from './models/provider.js';
export { lastUserText, lastUserMessage, itemText, countTokens, contextTokens } from './models/item-text.js';
export {
  FINAL_STATUSES,
  StoreEntryTooLargeError,
  StoreUnavailableError,
  StoredRecordError,
  findItem,
  forEachItem,
  parseStoredResponse,
  type ResponseStore,
  type StoredChain,
  type StoredResponse,
  type StoredResponseText,
} from './stores/contract.js';
export { InMemoryResponseStore, type InMemoryStoreOptions } from './stores/memory.js';
export { ConnectionCache } from './stores/connection-cache.js';
export { DEFAULT_LIMITS, limitsFromEnv, type ServerLimits } from './limits.js';
export { generateEncryptionKey, parseEncryptionKeys, type EncryptionKey } from './responses/sealed.js';
export { type IngressProfile, OMITTED_TOOLS_FIELD } from './responses/turn/superset.js';
export {
  resolveTenants,
  tenantsFileSchema,
  TenantsConfigError,
  type ModelPrice,
  type Tenant,
  type TenantDirectory,
  type TenantLimits,
  type TenantsFile,
} from './tenants.js';
export {
  daysBetween,
  gcra,
  MAX_MODEL_NAME,
  MAX_MODELS_PER_DAY,
  OTHER_MODEL,
  periodOf,
  USAGE_RETENTION_DAYS,
  type GcraResult,
  type LeaseKind,
  type Period,
  type QuotaBackend,
  type RateDecision,
  type RateWindow,
  type Settlement,
  type TokenDecision,
  type TokenLimits,
  type TurnUsage,
  type UsageQuery,
  type UsageRow,
} from './quota.js';
export { MemoryQuota } from './memory-quota.js';
