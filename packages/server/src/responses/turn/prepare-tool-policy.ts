import type { CreateResponseBody, FunctionToolParam } from '@openresponses/types';
import { invalidRequest } from '../../errors.js';
import type { ToolPolicy } from '../../models/provider.js';

/** `tool_choice` and `allowed_tools` as the names the model may call; a name the request's tools lack is a 400 naming its `param`. */
export function toolPolicyOf(body: CreateResponseBody, tools: FunctionToolParam[]): ToolPolicy {
  const names = tools.map((t) => t.name);
  const choice = body.tool_choice ?? 'auto';
  const exists = (name: string, param: string) => {
    if (!names.includes(name))
      throw invalidRequest(
        'unknown_tool',
        `tool_choice names '${name}', which is not among the request's tools.`,
        param,
      );
  };
  if (choice === 'none' || choice === 'auto' || choice === 'required') {
    if (choice === 'required' && names.length === 0)
      throw invalidRequest(
        'tool_choice_without_tools',
        'tool_choice "required" needs at least one tool.',
        'tool_choice',
      );
    return { mode: choice, allowed: choice === 'none' ? [] : names };
  }
  if (choice.type === 'function') {
    exists(choice.name, 'tool_choice.name');
    return { mode: 'required', allowed: [choice.name], forced: choice.name };
  }
  for (const [i, t] of choice.tools.entries()) exists(t.name, `tool_choice.tools[${i}].name`);
  return { mode: choice.mode ?? 'auto', allowed: choice.tools.map((t) => t.name) };
}
