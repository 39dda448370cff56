import { randomId } from '@openresponses/events';
import type { CreateResponseBody, ResponseResource } from '@openresponses/types';
import type { PreparedTurn } from './prepare.js';

/**
 * The response a turn starts from: what the request set, echoed in the response's shape, every other field at
 * the spec default. One literal with the fields in `startingResponse`'s order (test/turn-stages.test.ts holds
 * the two alike): `startingResponse(overrides)` spread ~27 overrides into its own object, made a second object
 * and read the clock a second time, ~0.6 µs a turn.
 */
export function initialResponse(turn: PreparedTurn, createdAt: number): ResponseResource {
  const { body } = turn;
  const { tools, hostedTools } = turn.request;
  return {
    id: randomId('resp'),
    object: 'response',
    created_at: createdAt,
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    previous_response_id: body.previous_response_id ?? null,
    instructions: body.instructions ?? null,
    output: [],
    error: null,
    tools: (tools.length === 0
      ? hostedTools.slice()
      : (tools.map(echoTool) as unknown[]).concat(hostedTools)) as ResponseResource['tools'],
    tool_choice: echoToolChoice(body.tool_choice),
    truncation: body.truncation ?? 'disabled',
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    text: (body.text?.verbosity
      ? { format: textFormat(body), verbosity: body.text.verbosity }
      : { format: textFormat(body) }) as ResponseResource['text'],
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
    usage: null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    store: body.store ?? true,
    background: body.background ?? false,
    // Every tier runs the same way here (see the README); `auto` reports the tier it resolved to.
    service_tier: !body.service_tier || body.service_tier === 'auto' ? 'default' : body.service_tier,
    metadata: body.metadata ?? {},
    safety_identifier: body.safety_identifier ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    model: turn.model,
  } as ResponseResource;
}

/** A function tool as the response lists it. */
const echoTool = (t: PreparedTurn['request']['tools'][number]) => ({
  type: 'function',
  name: t.name,
  description: t.description ?? null,
  parameters: t.parameters ?? null,
  strict: t.strict ?? false,
});

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
