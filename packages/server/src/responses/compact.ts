import { randomId } from '@openresponses/events';
import type { CompactResource, ItemField } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { checkRequestBudgets, type ServerLimits } from '../limits.js';
import { itemTokens } from '../models/item-text.js';
import { acceptClientShapes, historyOf, normalizeInput } from './context.js';
import type { TurnDependencies } from './turn/prepare.js';
import { validatorFor } from './validation.js';

/**
 * `POST /responses/compact`: keeps the window's user messages in the clear and seals everything else
 * into one `compaction` item that a later request can send back as input.
 */
export async function compactWindow(
  raw: unknown,
  version: SpecVersion,
  deps: TurnDependencies,
  limits: ServerLimits,
): Promise<CompactResource> {
  checkRequestBudgets(raw, limits);
  const check = validatorFor(version, 'CompactResponseMethodPublicBody');
  if (!check)
    throw new ResponsesError(
      'not_found',
      'unsupported_endpoint',
      `Compaction (POST /responses/compact) is not part of spec ${version}.`,
    );
  const result = check(acceptClientShapes(raw));
  if (!result.success) {
    const issue = result.issue;
    throw invalidRequest(
      issue.path === 'model' ? 'missing_required_parameter' : 'invalid_value',
      `Invalid request: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`,
      issue.path || null,
    );
  }
  const body = result.data as {
    model: string;
    input?: unknown;
    previous_response_id?: string | null;
    instructions?: string | null;
  };
  if (!deps.providers.some((p) => p.supports(body.model)))
    throw invalidRequest('model_not_found', `The model '${body.model}' does not exist on this server.`, 'model');
  const history = body.previous_response_id
    ? await historyOf(body.previous_response_id, deps.loadChain, deps.sealer)
    : [];
  const { expanded } = await normalizeInput(body.input as never, deps.lookupItem, deps.sealer);
  const window = history.concat(expanded);
  // One pass into both lists (a `kept.includes` per item was quadratic).
  const kept: ItemField[] = [];
  const sealed: ItemField[] = [];
  for (const item of window)
    (item.type === 'message' && (item as { role: string }).role === 'user' ? kept : sealed).push(item);
  const compaction = {
    type: 'compaction',
    id: randomId('cmp'),
    status: 'completed',
    encrypted_content: await deps.sealer.seal(sealed, 'compaction'),
  } as ItemField;
  const inputTokens = window.reduce((n, item) => n + itemTokens(item), 0);
  const outputTokens = kept.reduce((n, item) => n + itemTokens(item), 0) + 1;
  return {
    id: randomId('resp'),
    object: 'response.compaction',
    output: [...kept, compaction],
    created_at: Math.floor(Date.now() / 1000),
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}
