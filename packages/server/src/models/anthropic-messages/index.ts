export {
  ANTHROPIC_URL,
  ANTHROPIC_VERSION,
  AnthropicMessagesProvider,
  type AnthropicMessagesProviderOptions,
} from './provider.js';
export { DEFAULT_MAX_TOKENS, toAnthropicRequest, type AnthropicRequestSettings } from './request.js';
export type * from './wire.js';
