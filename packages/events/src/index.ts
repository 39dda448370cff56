/**
 * Open Responses streaming events: typed unions and guards, the SSE decoder and encoder, the accumulator, the
 * stream checker (the spec's ordering rules) and the stream writer.
 *
 * @packageDocumentation
 */
export {
  type AnyStreamingEvent,
  type OpaqueMember,
  type StreamingEvent,
  type StreamingEventByType,
  type StreamingEventType,
  type TerminalEventType,
  type VendorEvent,
  isStreamingEvent,
  isStreamingEventType,
  isTerminalEventType,
  isVendorEvent,
  isVendorType,
  VENDOR_TYPE_PATTERN,
  PEER_EVENT_ALIASES,
  STREAMING_EVENT_TYPES,
  TERMINAL_EVENT_TYPES,
} from './events.js';
export { randomHex, randomId } from './writer/ids.js';
export { on, onEvery, type EventHandlers, type ExhaustiveEventHandlers } from './dispatch.js';
export { encodeEvent, encodeEventJSON, createSSEEncoderStream, SSE_DONE } from './sse/encoder.js';
export {
  decodeSSE,
  SSEDecodeError,
  type DecodeOptions,
  type DecodedEventStream,
  type DecodeErrorCode,
  type StreamWarning,
} from './sse/decoder.js';
export {
  createSSEFrameDecoder,
  createSSEFrameStream,
  SSEFrameError,
  type SSEFrame,
  type SSEFrameDecoder,
  type SSEFrameDecoderOptions,
  type SSEFrameEnd,
  type SSEFrameErrorCode,
} from './sse/frames.js';
export {
  createAccumulator,
  type Accumulator,
  type AccumulatorOptions,
  type VendorEventFold,
} from './accumulator/accumulator.js';
export {
  checkStream,
  createStreamChecker,
  STREAM_RULES,
  type StreamChecker,
  type StreamCheckerOptions,
  type StreamRule,
  type Violation,
} from './checker/checker.js';
export {
  createStreamWriter,
  StreamOrderError,
  type FunctionCallWriter,
  type MessageWriter,
  type ReasoningWriter,
  type StreamWriter,
  type StreamWriterOptions,
  type TextPartWriter,
  type WrittenEvent,
} from './writer/writer.js';
export { startingResponse } from './writer/starting-response.js';
