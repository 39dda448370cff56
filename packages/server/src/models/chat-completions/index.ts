export { ChatCompletionsProvider, type ChatCompletionsProviderOptions } from './provider.js';
export { toChatRequest, type ChatRequestSettings } from './request.js';
export type * from './wire.js';
