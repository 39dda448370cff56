import type { AnyStreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { OMITTED_TOOLS_FIELD, type SupersetTurn } from './superset.js';

// The way out of the OpenAI-superset ingress profile (superset.ts lowers the request): the model's function
// calls to lowered tools go back to the client as the namespaced or custom calls it declared.

/** An output item in the client's shape: a lowered tool's function call becomes its namespaced or custom call. */
function liftItem(item: Record<string, unknown>, superset: SupersetTurn): Record<string, unknown> {
  if (item.type !== 'function_call') return item;
  const tool = superset.declared.get(item.name as string);
  if (!tool) return item;
  const namespace = tool.namespace === undefined ? {} : { namespace: tool.namespace };
  if (tool.kind === 'function') return { ...item, name: tool.name, ...namespace };
  const { arguments: args, ...rest } = item;
  return { ...rest, type: 'custom_tool_call', name: tool.name, ...namespace, input: customInput(args) };
}

/** The `input` a custom tool's call carries: the one string argument (the raw arguments when the model sent other JSON). */
function customInput(args: unknown): string {
  if (typeof args !== 'string') return '';
  try {
    const parsed = JSON.parse(args) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { input?: unknown }).input === 'string')
      return (parsed as { input: string }).input;
  } catch {
    // Arguments cut short (an incomplete call) or not JSON: passed on as they are.
  }
  return args;
}

/** A response in the client's shapes: its lowered calls lifted, its tools as sent, the omitted hosted tools named. */
export function liftResponse(response: ResponseResource, superset: SupersetTurn): ResponseResource {
  return {
    ...response,
    ...(superset.tools ? { tools: superset.tools } : {}),
    ...(superset.jsonObject ? { text: { ...response.text, format: { type: 'json_object' } } } : {}),
    output: response.output.map((item) => liftItem(item as Record<string, unknown>, superset)),
    [OMITTED_TOOLS_FIELD]: superset.omitted,
  } as unknown as ResponseResource;
}

/**
 * The turn's events in the client's shapes, renumbered: items and response snapshots lifted; a custom call's
 * argument deltas (JSON around its input) replaced by one `response.custom_tool_call_input.delta` and
 * `.done` carrying the input, as OpenAI streams them.
 */
export function liftEvents(superset: SupersetTurn): (event: AnyStreamingEvent) => AnyStreamingEvent[] {
  let next = 0;
  const custom = new Set<string>();
  const numbered = (event: Record<string, unknown>) =>
    ({ ...event, sequence_number: next++ }) as unknown as AnyStreamingEvent;
  return (event) => {
    const record = event as unknown as Record<string, unknown>;
    if ('response' in record && record.response && typeof record.response === 'object')
      return [numbered({ ...record, response: liftResponse(record.response as ResponseResource, superset) })];
    if ('item' in record && record.item && typeof record.item === 'object') {
      const item = liftItem(record.item as Record<string, unknown>, superset);
      if (item.type === 'custom_tool_call') custom.add(item.id as string);
      return [numbered({ ...record, item })];
    }
    if (typeof record.item_id === 'string' && custom.has(record.item_id)) {
      if (event.type === 'response.function_call_arguments.delta') return [];
      if (event.type === 'response.function_call_arguments.done') {
        const input = customInput(record.arguments);
        const where = { item_id: record.item_id, output_index: record.output_index };
        return [
          numbered({ type: 'response.custom_tool_call_input.delta', ...where, delta: input }),
          numbered({ type: 'response.custom_tool_call_input.done', ...where, input }),
        ];
      }
    }
    return [numbered(record)];
  };
}
