export {
  createResponsesHandler,
  createResponsesService,
  type ResponsesService,
  type ResponsesServiceOptions,
} from './handler/service.js';
export type { ServiceRequest, ServiceResponse, ServiceEventStream } from './handler/http.js';
export { Cancellation } from './responses/cancellation.js';
export { ResponsesError, ERROR_STATUS, type ErrorType } from './errors.js';
export { DeterministicModel, DETERMINISTIC_MODEL, TRIGGERS } from './models/deterministic.js';
export {
  lastUserText,
  lastUserMessage,
  itemText,
  countTokens,
  type FinishReason,
  type ModelPart,
  type ModelProvider,
  type ModelRequest,
  type ModelUsage,
  type ToolPolicy,
} from './models/provider.js';
export {
  InMemoryResponseStore,
  type ResponseStore,
  type StoredResponse,
  type InMemoryStoreOptions,
} from './stores/store.js';
