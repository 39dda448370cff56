export { GEMINI_API_VERSION, GEMINI_URL, GeminiProvider, type GeminiProviderOptions } from './provider.js';
export { toGeminiRequest, type GeminiRequestSettings } from './request.js';
export { toGeminiSchema } from './json-schema.js';
export type * from './wire.js';
