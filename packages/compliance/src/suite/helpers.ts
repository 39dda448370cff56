import type { FunctionCall, ResponseResource } from '@openresponses/types';
import { expect, expectError, type HttpResult, type TestSocket } from './context.js';

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
export const forcedWeather = {
  input: 'What is the weather in Paris?',
  tools: [weatherTool],
  tool_choice: { type: 'function', name: 'get_weather' },
};
export const toolOutput = (call_id: string) => ({ type: 'function_call_output', call_id, output: '{"celsius":21}' });
export const responseOf = (messages: Array<Record<string, unknown>>) =>
  (messages.at(-1) as { response?: ResponseResource }).response;
export const errorOf = (messages: Array<Record<string, unknown>>) =>
  messages.at(-1) as { type: string; status?: number; error?: { code?: string; type?: string } };
/** A `store: false` socket turn forced to call the weather tool, and that call: where continuation tests start. */
export async function storeFalseToolCall(socket: TestSocket) {
  const first = responseOf(await socket.turn({ ...forcedWeather, store: false }));
  const [call] = first ? calls(first) : [];
  expect(call, 'tool-choice', 'tool_choice naming a function made no call');
  return { first: first!, call };
}
/** Content the server did not issue (or issued and saw altered) is a 400 naming the encrypted_content. */
export const expectRefusedContent = (result: HttpResult) => {
  const error = expectError(result, [400], 'encrypted-content');
  expect(
    error.param?.includes('encrypted_content'),
    'error-param',
    `param is ${JSON.stringify(error.param)}, expected the encrypted_content`,
  );
};
export const longInput = (words: number) => Array.from({ length: words }, (_, i) => `w${i % 1000}`).join(' ');
