/**
 * The Open Responses client: `createClient()` with typed `responses.create` and `responses.stream` (typed
 * events, the accumulated response), WebSocket sessions, retries, an agent loop, history helpers and typed
 * errors.
 *
 * @packageDocumentation
 */
export {
  createClient,
  type ClientOptions,
  type CreateBody,
  type OpenResponsesClient,
  type Responses,
} from './client.js';
export { ResponseStream, type EventPolicy } from './stream.js';
export {
  OpenResponsesError,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  ResponseFailedError,
  InvalidPayloadError,
} from './errors.js';
export type { RequestOptions } from './http.js';
export type {
  ConnectOptions,
  ResponsesSession,
  SessionTurnBody,
  WebSocketConstructor,
  WebSocketLike,
} from './websocket.js';
export { runAgent, defineTool, type AgentTool, type AgentResult, type RunAgentOptions } from './agent.js';
export { outputToInput } from './output-to-input.js';
export { outputText, type ClientResponse } from './output-text.js';
export { functionCalls, toolOutputs, nextInput, sanitizeReplayedHistory, MissingToolOutputError } from './history.js';
