import type { CreateResponseBody, ItemField } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';

/**
 * A function_call_output answers a function_call of the context (the previous chain or this input); one that
 * answers nothing is an invalid request, as in the Responses API, rather than a message the model cannot place.
 */
export function rejectOrphanToolOutputs(
  input: CreateResponseBody['input'],
  history: ItemField[],
  expanded: ItemField[],
): void {
  if (!Array.isArray(input) || !input.some((item) => item.type === 'function_call_output')) return;
  const calls = new Set<string>();
  for (const list of [history, expanded])
    for (const item of list) if (item.type === 'function_call') calls.add((item as { call_id: string }).call_id);
  for (const [index, item] of input.entries()) {
    if (item.type !== 'function_call_output') continue;
    const callId = (item as { call_id: string }).call_id;
    if (!calls.has(callId))
      throw invalidRequest(
        'function_call_not_found',
        `No function_call with call_id '${callId}' in the context (previous responses and this input) for input[${index}] to answer.`,
        `input[${index}].call_id`,
      );
  }
}
