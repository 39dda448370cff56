import type { ResponseResource } from '@openresponses/types';

/** A response as a server starts it: every required field, in progress, empty output. */
export function startingResponse(overrides: Partial<ResponseResource> = {}): ResponseResource {
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1_769_990_400,
    completed_at: null,
    status: 'in_progress',
    incomplete_details: null,
    model: 'test-model',
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
