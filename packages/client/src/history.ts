import type { FunctionCall, ItemField, ItemParam, ResponseResource } from '@openresponses/types';
import { outputToInput } from './output-to-input.js';

/** A function call the caller answered with no output: the next turn would fail with "No tool output found". */
export class MissingToolOutputError extends Error {
  /** `'MissingToolOutputError'`. */
  override name = 'MissingToolOutputError';
  constructor(
    /** The `call_id`s of the calls without output. */
    readonly callIds: string[],
  ) {
    super(
      `No output for function call${callIds.length > 1 ? 's' : ''} ${callIds.join(', ')}: every call needs a function_call_output before the next turn.`,
    );
  }
}

/** The function calls a response asks the caller to run. */
export function functionCalls(response: ResponseResource): FunctionCall[] {
  return response.output.filter((item): item is FunctionCall => item.type === 'function_call');
}

/**
 * `function_call_output` items for every call, in call order. Fails early, naming the call ids, when
 * any call has no output (or an output names a call that does not exist).
 */
export function toolOutputs(calls: readonly FunctionCall[], outputs: Readonly<Record<string, unknown>>): ItemParam[] {
  const missing = calls.filter((call) => !(call.call_id in outputs)).map((call) => call.call_id);
  if (missing.length > 0) throw new MissingToolOutputError(missing);
  const unknown = Object.keys(outputs).filter((id) => !calls.some((call) => call.call_id === id));
  if (unknown.length > 0) throw new Error(`Outputs for unknown call ids: ${unknown.join(', ')}`);
  return calls.map((call) => {
    const output = outputs[call.call_id];
    return {
      type: 'function_call_output',
      call_id: call.call_id,
      output: typeof output === 'string' ? output : JSON.stringify(output),
    };
  });
}

/** The next turn's input when resending full history: what was sent, what came back, then the new items. */
export function nextInput(
  previousInput: readonly ItemParam[],
  response: ResponseResource,
  newItems: readonly ItemParam[] = [],
): ItemParam[] {
  return [...previousInput, ...outputToInput(response), ...newItems];
}

/**
 * Makes replayed history safe to send to servers that pair reasoning items with what follows them
 * (seed 002: "Item 'rs_…' not found", "'message' … provided without its required 'reasoning' item"):
 * reasoning items of earlier turns (before the last user message) are dropped, and the items that
 * followed a dropped reasoning item lose their ids, so nothing refers to the missing reasoning.
 * The current turn (from the last user message on) is kept as it is, so tool-call continuations keep
 * their reasoning.
 */
export function sanitizeReplayedHistory(items: readonly ItemParam[]): ItemParam[] {
  let lastUser = -1;
  items.forEach((item, index) => {
    if (isUserMessage(item)) lastUser = index;
  });
  const out: ItemParam[] = [];
  let afterDroppedReasoning = false;
  items.forEach((item, index) => {
    if (index >= lastUser) {
      out.push(item);
      return;
    }
    if (item.type === 'reasoning') {
      afterDroppedReasoning = true;
      return;
    }
    if (isUserMessage(item)) afterDroppedReasoning = false;
    if (afterDroppedReasoning && 'id' in item && item.id !== undefined) {
      const { id: _dropped, ...rest } = item as ItemParam & { id?: unknown };
      out.push(rest as ItemParam);
    } else out.push(item);
  });
  return out;
}

function isUserMessage(item: ItemParam | ItemField): boolean {
  return (item.type === 'message' || item.type === undefined) && (item as { role?: string }).role === 'user';
}
