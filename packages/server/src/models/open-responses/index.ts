export { OpenResponsesProvider, type OpenResponsesProviderOptions } from './provider.js';
export { toResponsesRequest, type ResponsesRequestSettings } from './request.js';
