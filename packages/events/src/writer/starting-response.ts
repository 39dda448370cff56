import type { ResponseResource } from '@openresponses/types';
import { randomId } from './ids.js';

/**
 * A response as a server starts one (status `in_progress`, empty output, every required field at its
 * default), for `createStreamWriter({ response })`. Pass what the request set as overrides.
 */
export function startingResponse(
  overrides: Partial<ResponseResource> & Pick<ResponseResource, 'model'>,
): ResponseResource {
  return {
    id: randomId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    previous_response_id: null,
    instructions: null,
    output: [],
    error: null,
    tools: [],
    tool_choice: 'auto',
    truncation: 'disabled',
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage: null,
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
    ...overrides,
  };
}
