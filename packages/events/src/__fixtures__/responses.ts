import type { ResponseResource } from '@openresponses/types';
import { startingResponse as start } from '../writer/starting-response.js';

/** The tests' starting response: fixed id and time, so recorded streams are stable. */
export function startingResponse(overrides: Partial<ResponseResource> = {}): ResponseResource {
  return start({ id: 'resp_test', created_at: 1_769_990_400, model: 'test-model', ...overrides });
}
