import { startingResponse } from '@openresponses/events';
import type { CreateResponseBody, ResponseResource } from '@openresponses/types';
import type { PreparedTurn } from './prepare.js';

/** The response a turn starts from: what the request set, echoed in the response's shape. */
export function initialResponse(turn: PreparedTurn, createdAt: number): ResponseResource {
  const { body } = turn;
  // Echo what the request set; everything else keeps the spec defaults of startingResponse.
  return startingResponse({
    created_at: createdAt,
    model: turn.model,
    previous_response_id: body.previous_response_id ?? null,
    instructions: body.instructions ?? null,
    tools: [
      ...turn.request.tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description ?? null,
        parameters: t.parameters ?? null,
        strict: t.strict ?? false,
      })),
      ...turn.request.hostedTools,
    ] as ResponseResource['tools'],
    tool_choice: echoToolChoice(body.tool_choice),
    truncation: body.truncation ?? 'disabled',
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    text: {
      format: textFormat(body),
      ...(body.text?.verbosity ? { verbosity: body.text.verbosity } : {}),
    } as ResponseResource['text'],
    top_p: body.top_p ?? 1,
    presence_penalty: body.presence_penalty ?? 0,
    frequency_penalty: body.frequency_penalty ?? 0,
    top_logprobs: body.top_logprobs ?? 0,
    temperature: body.temperature ?? 1,
    reasoning: body.reasoning
      ? ({
          effort: body.reasoning.effort ?? null,
          summary: body.reasoning.summary ?? null,
        } as ResponseResource['reasoning'])
      : null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    store: body.store ?? true,
    background: body.background ?? false,
    // Every tier runs the same way here (see the README); `auto` reports the tier it resolved to.
    service_tier: !body.service_tier || body.service_tier === 'auto' ? 'default' : body.service_tier,
    metadata: body.metadata ?? {},
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
  });
}

/** The response echoes the requested format in the response's shape (which carries no schema). */
function textFormat(body: CreateResponseBody): ResponseResource['text']['format'] {
  const format = body.text?.format;
  if (format?.type !== 'json_schema') return { type: 'text' };
  return {
    type: 'json_schema',
    name: format.name ?? 'response',
    description: format.description ?? null,
    schema: null,
    strict: format.strict ?? false,
  };
}

/** The response's tool_choice shape requires `mode` on allowed_tools, which requests may omit. */
function echoToolChoice(choice: CreateResponseBody['tool_choice']): ResponseResource['tool_choice'] {
  if (!choice) return 'auto';
  if (typeof choice === 'string' || choice.type === 'function') return choice as ResponseResource['tool_choice'];
  return {
    type: 'allowed_tools',
    tools: choice.tools.map((t) => ({ type: 'function', name: t.name })),
    mode: choice.mode ?? 'auto',
  };
}
