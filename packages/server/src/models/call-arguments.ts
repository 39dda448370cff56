import type { ItemField } from '@openresponses/types';
import { invalidRequest } from '../errors.js';
import { checkJsonDepth, DEFAULT_LIMITS } from '../limits.js';

/**
 * A `function_call` item's arguments as the object an upstream that takes call arguments as an object needs
 * (Anthropic's `tool_use.input`, Gemini's `functionCall.args`): the client's text, parsed here for the first
 * time, so bounded in depth as a request body is; text that is not JSON is a 400 naming `input` that says
 * `upstream` takes an object.
 */
export function callArgumentsOf(item: ItemField, upstream: string): unknown {
  const { call_id: callId, arguments: text } = item as { call_id?: unknown; arguments?: unknown };
  const json = (text as string) || '{}';
  checkJsonDepth(json, DEFAULT_LIMITS, `The arguments of function call '${String(callId)}'`, 'input');
  try {
    return JSON.parse(json);
  } catch (error) {
    throw invalidRequest(
      'invalid_value',
      `The arguments of function call '${String(callId)}' are not JSON; ${upstream} takes call arguments as an object.`,
      'input',
      400,
      { cause: error },
    );
  }
}
