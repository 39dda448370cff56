import type { FunctionCall, ResponseResource } from '@openresponses/types';

export const weatherTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const timeTool = {
  type: 'function',
  name: 'get_time',
  description: 'Local time for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const calls = (response: ResponseResource) =>
  response.output.filter((i): i is FunctionCall => i.type === 'function_call');
export const user = (content: unknown) => ({ type: 'message', role: 'user', content });
export const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
