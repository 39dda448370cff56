import type { ItemField } from '@openresponses/types';
import type { ModelRequest } from '../provider.js';
import type { OpenResponsesReasoningState } from './wire.js';

/** What the route adds to a request: the upstream's model name, and default body fields. */
export interface ResponsesRequestSettings {
  /** The name the upstream knows the model by. */
  upstreamModel: string;
  /** Body fields sent when the request does not set them. */
  defaults?: Record<string, unknown>;
  /**
   * Ask for `reasoning.encrypted_content` (default true), so that reasoning returns to the upstream on the
   * next turn. Off for servers that refuse that `include` value.
   */
  encryptedReasoning?: boolean;
}

/** The include that makes a stateless upstream return its reasoning, to be sent back. */
const ENCRYPTED_REASONING = 'reasoning.encrypted_content';

/**
 * A `POST /v1/responses` body for the upstream. The gateway owns state: the whole context goes as `input`
 * (never the upstream's `previous_response_id`), with `store: false`. Items go without the gateway's ids
 * (they name nothing upstream); reasoning goes back only with the encrypted content this upstream made
 * (`states`: opened from the gateway's seal), otherwise it is left out as the spec allows.
 */
export function toResponsesRequest(
  request: ModelRequest,
  settings: ResponsesRequestSettings,
  states: ReadonlyMap<ItemField, OpenResponsesReasoningState>,
): Record<string, unknown> {
  const input: unknown[] = [];
  for (const item of request.items) {
    const { id: _id, ...rest } = item as ItemField & { id?: string };
    if (item.type === 'reasoning') {
      const state = states.get(item);
      if (!state) continue;
      input.push({ ...rest, encrypted_content: state.encrypted_content });
      continue;
    }
    input.push(rest);
  }
  const include = request.include.filter((value) => value !== ENCRYPTED_REASONING);
  if (settings.encryptedReasoning !== false) include.push(ENCRYPTED_REASONING);
  const body: Record<string, unknown> = {
    ...settings.defaults,
    model: settings.upstreamModel,
    input,
    store: false,
    stream: request.stream,
  };
  const set = (field: string, value: unknown) => {
    if (value !== null && value !== undefined) body[field] = value;
  };
  set('instructions', request.instructions);
  const tools = [...request.tools, ...request.hostedTools];
  if (tools.length > 0) {
    body.tools = tools;
    body.tool_choice = toolChoiceOf(request);
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  set('max_tool_calls', request.maxToolCalls);
  set('reasoning', request.reasoning);
  set('max_output_tokens', request.maxOutputTokens);
  set('temperature', request.temperature);
  set('top_p', request.topP);
  set('presence_penalty', request.presencePenalty);
  set('frequency_penalty', request.frequencyPenalty);
  set('top_logprobs', request.topLogprobs);
  set('text', request.text);
  if (Object.keys(request.metadata).length > 0) body.metadata = request.metadata;
  set('safety_identifier', request.safetyIdentifier);
  set('prompt_cache_key', request.promptCacheKey);
  set('service_tier', request.serviceTier);
  if (include.length > 0) body.include = include;
  return body;
}

/** `tool_choice` as the request's tool policy resolved it (`allowed_tools` when it narrows the tools). */
function toolChoiceOf(request: ModelRequest): unknown {
  const { toolPolicy } = request;
  if (toolPolicy.mode === 'none') return 'none';
  if (toolPolicy.forced) return { type: 'function', name: toolPolicy.forced };
  if (toolPolicy.allowed.length < request.tools.length)
    return {
      type: 'allowed_tools',
      mode: toolPolicy.mode,
      tools: toolPolicy.allowed.map((name) => ({ type: 'function', name })),
    };
  return toolPolicy.mode;
}
