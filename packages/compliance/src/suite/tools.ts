// Function tools: tool_choice, allowed_tools as a hard constraint, tool outputs answering calls of the context.
import { expect, expectError, type ComplianceTest } from './context.js';
import { calls, timeTool, weatherTool, forcedWeather, toolOutput } from './helpers.js';

export const TOOLS_TESTS: ComplianceTest[] = [
  {
    id: 'tool-calling',
    description: 'tool_choice "required" yields a function_call with JSON arguments, streamed correctly',
    transport: 'http',
    async run(t) {
      const { final } = await t.stream({
        input: 'What is the weather in Paris?',
        tools: [weatherTool],
        tool_choice: 'required',
      });
      const [call] = calls(final);
      expect(call, 'tool-call', 'no function_call in output');
      expect(call.name === 'get_weather', 'tool-call', `called ${call.name}`);
      JSON.parse(call.arguments);
    },
  },
  {
    id: 'tool-choice-none',
    description: 'tool_choice "none" makes no tool call',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'What is the weather in Paris? Use get_weather.',
        tools: [weatherTool],
        tool_choice: 'none',
      });
      expect(calls(response).length === 0, 'tool-choice', 'a tool was called with tool_choice none');
    },
  },
  {
    id: 'tool-choice-specific',
    description: 'tool_choice naming a function calls exactly that function',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'What time is it in Paris?',
        tools: [weatherTool, timeTool],
        tool_choice: { type: 'function', name: 'get_weather' },
      });
      expect(
        calls(response).length > 0 && calls(response).every((c) => c.name === 'get_weather'),
        'tool-choice',
        `calls: ${
          calls(response)
            .map((c) => c.name)
            .join(', ') || 'none'
        }`,
      );
    },
  },
  {
    id: 'allowed-tools',
    description: 'allowed_tools is enforced: only listed tools are called',
    transport: 'http',
    async run(t) {
      const response = await t.create({
        input: 'Get the weather and the time in Paris.',
        tools: [weatherTool, timeTool],
        tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] },
      });
      const names = calls(response).map((c) => c.name);
      expect(
        names.length > 0 && names.every((n) => n === 'get_time'),
        'allowed-tools',
        `calls: ${names.join(', ') || 'none'}`,
      );
    },
  },
  {
    id: 'function-call-output-roundtrip',
    description: 'Parallel calls answered with function_call_output items in one follow-up complete the turn',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({
        input: 'What are the weather and the time in Paris?',
        tools: [weatherTool, timeTool],
      });
      const made = calls(first);
      expect(made.length >= 2, 'parallel-calls', `expected two calls, got ${made.length}`);
      const second = await t.create({
        previous_response_id: first.id,
        tools: [weatherTool, timeTool],
        input: made.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: '{"ok":true}' })),
      });
      expect(
        second.status === 'completed' && calls(second).length === 0,
        'roundtrip',
        'the follow-up did not complete with an answer',
      );
    },
  },
  {
    id: 'orphan-tool-output',
    description: 'A function_call_output whose call_id matches no function_call in the context is a 400',
    transport: 'http',
    async run(t) {
      const alone = expectError(
        await t.request('POST', '/responses', { model: t.config.model, input: [toolOutput('call_nobody_made')] }),
        [400],
        'orphan-tool-output',
      );
      expect(
        alone.type === 'invalid_request' || alone.type === 'invalid_request_error',
        'orphan-tool-output',
        `error type ${alone.type}`,
      );
      expect(
        typeof alone.param === 'string' && alone.param.startsWith('input'),
        'error-param',
        `param is ${JSON.stringify(alone.param)}, expected the input item`,
      );
      const first = await t.create(forcedWeather);
      expectError(
        await t.request('POST', '/responses', {
          model: t.config.model,
          previous_response_id: first.id,
          tools: [weatherTool],
          input: [toolOutput('call_nobody_made')],
        }),
        [400],
        'orphan-tool-output',
      );
    },
  },
];
