import type { CreateResponseBody, FunctionToolParam, ItemField } from '@openresponses/types';
import type { Registry } from '@openresponses/extensions';
import type { SpecVersion } from '@openresponses/zod';
import { invalidRequest } from '../../errors.js';
import { checkRequestBudgets, DEFAULT_LIMITS, type ServerLimits } from '../../limits.js';
import { LOGPROBS_INCLUDE, type ModelProvider, type ModelRequest } from '../../models/provider.js';
import { contextTokens } from '../../models/item-text.js';
import { acceptClientShapes, historyOf, type LoadChain, type LookupItem, normalizeInput } from '../context.js';
import type { Sealer } from '../sealed.js';
import { rejectOrphanToolOutputs } from './prepare-orphan-outputs.js';
import { toolPolicyOf } from './prepare-tool-policy.js';
import { type IngressProfile, lowerSuperset, type SupersetTurn } from './superset.js';
import { fitToWindow } from './prepare-truncation.js';
import { validatorFor } from '../validation.js';
import { modelRequestOf } from './provider-request.js';

export interface TurnDependencies {
  /** Vendor extensions: requests validate with the registry's extended schemas. */
  registry?: Registry;
  providers: ModelProvider[];
  /** The model used when a request names none. */
  defaultModel: string;
  loadChain: LoadChain;
  lookupItem: LookupItem;
  sealer: Sealer;
  /** Budgets for request fields and output (default: `DEFAULT_LIMITS`). */
  limits?: ServerLimits;
  /** Which request shapes are read (default `openai-superset`; `spec` for conformance testing). */
  ingress?: IngressProfile;
}

/** A validated request, resolved against stored state, ready to run. */
export interface PreparedTurn {
  body: CreateResponseBody;
  model: string;
  provider: ModelProvider;
  /** This turn's input (what is stored and listed by input_items). */
  input: ItemField[];
  request: ModelRequest;
  /** The context's `countTokens` tokens (counted on first read when the window check had no need to). */
  inputTokens: number;
  /** Set when the request used OpenAI-superset shapes: how the model's calls map back to them. */
  superset?: SupersetTurn;
}

/**
 * Validates and resolves a create request; every failure is a ResponsesError naming its `param` (thrown, or
 * the promise's rejection). Answers at once, without a promise, when nothing is read from the store or
 * opened by the sealer (no `previous_response_id`, input without references or sealed items).
 */
export function prepareTurn(
  raw: unknown,
  version: SpecVersion,
  deps: TurnDependencies,
  schema: 'CreateResponseBodySchema' | 'WebSocketResponseCreateEventSchema' = 'CreateResponseBodySchema',
): PreparedTurn | Promise<PreparedTurn> {
  checkRequestBudgets(raw, deps.limits ?? DEFAULT_LIMITS);
  // Superset shapes become spec shapes first, so everything below (and every family) sees only the spec's.
  const lowered = deps.ingress === 'spec' ? { body: raw, superset: undefined } : lowerSuperset(raw);
  const shaped = acceptClientShapes(lowered.body);
  let shape: 'CreateResponseBody' | 'WebSocketResponseCreateEvent' =
    schema === 'WebSocketResponseCreateEventSchema' ? 'WebSocketResponseCreateEvent' : 'CreateResponseBody';
  let body_ = shaped;
  if (deps.registry && shape === 'WebSocketResponseCreateEvent') {
    // The registry extends the create body; the WebSocket envelope's own rules are checked here.
    const { type: _type, ...rest } = shaped as Record<string, unknown>;
    const sent = ['stream', 'stream_options', 'background'].find((field) => field in rest);
    if (sent)
      throw invalidRequest(
        'invalid_value',
        `Invalid request: ${sent} must not be sent in a WebSocket response.create message.`,
        sent,
      );
    body_ = rest;
    shape = 'CreateResponseBody';
  }
  const check =
    validatorFor<CreateResponseBody>(version, shape, deps.registry) ??
    validatorFor<CreateResponseBody>(version, 'CreateResponseBody', deps.registry)!;
  const result = check(body_);
  if (!result.success) {
    const issue = result.issue;
    throw invalidRequest(
      'invalid_value',
      `Invalid request: ${issue.path ? `${issue.path}: ` : ''}${issue.message}`,
      issue.path || null,
    );
  }
  const body = result.data;
  const model = body.model ?? deps.defaultModel;
  const provider = deps.providers.find((p) => p.supports(model));
  if (!provider)
    throw invalidRequest('model_not_found', `The model '${model}' does not exist on this server.`, 'model');
  const logprobsAt = body.include?.indexOf(LOGPROBS_INCLUDE) ?? -1;
  if (logprobsAt >= 0 && !provider.reportsLogprobs)
    throw invalidRequest(
      'unsupported_include',
      `The model '${model}' does not report token log probabilities.`,
      `include[${logprobsAt}]`,
    );

  const tools = (body.tools ?? []).filter((t): t is FunctionToolParam => t.type === 'function');
  const hostedTools = ((body.tools ?? []) as Array<{ type: string }>).filter((t) => t.type !== 'function');
  const checked: CheckedRequest = {
    body,
    model,
    provider,
    tools,
    hostedTools,
    toolPolicy: toolPolicyOf(body, tools),
    superset: lowered.superset,
  };
  if (body.previous_response_id) return withHistory(checked, body.previous_response_id, deps);
  const normalized = normalizeInput(body.input, deps.lookupItem, deps.sealer);
  return normalized instanceof Promise
    ? normalized.then((input) => resolved(checked, NO_HISTORY, input))
    : resolved(checked, NO_HISTORY, normalized);
}

/** A valid request with its model, provider and tools, before its context is read. */
interface CheckedRequest {
  body: CreateResponseBody;
  model: string;
  provider: ModelProvider;
  tools: FunctionToolParam[];
  hostedTools: Array<{ type: string }>;
  toolPolicy: ReturnType<typeof toolPolicyOf>;
  superset: SupersetTurn | undefined;
}

const NO_HISTORY: ItemField[] = [];

async function withHistory(checked: CheckedRequest, previous: string, deps: TurnDependencies): Promise<PreparedTurn> {
  const history = await historyOf(previous, deps.loadChain, deps.sealer);
  return resolved(checked, history, await normalizeInput(checked.body.input, deps.lookupItem, deps.sealer));
}

/** The turn, given its history and its normalized input: orphan outputs refused, the window fitted, the model's request. */
function resolved(
  checked: CheckedRequest,
  history: ItemField[],
  { input, expanded }: { input: ItemField[]; expanded: ItemField[] },
): PreparedTurn {
  const { body, model, provider, tools, hostedTools, toolPolicy } = checked;
  rejectOrphanToolOutputs(body.input, history, expanded);
  const context = history.length === 0 ? expanded : history.concat(expanded);
  const { items, inputTokens } = fitToWindow(
    context,
    body.instructions,
    provider.contextWindow,
    body.truncation ?? 'disabled',
  );
  const request = modelRequestOf(body, { model, items, inputTokens, tools, hostedTools, toolPolicy });
  return new Prepared(body, model, provider, input, request, checked.superset);
}

/** A prepared turn (a class: its getter is on the prototype, not made per turn). */
class Prepared implements PreparedTurn {
  constructor(
    readonly body: CreateResponseBody,
    readonly model: string,
    readonly provider: ModelProvider,
    readonly input: ItemField[],
    readonly request: ModelRequest,
    readonly superset: SupersetTurn | undefined,
  ) {}

  /** Counted when first read (a failed turn's usage), when the window check did not need to count. */
  get inputTokens(): number {
    this.request.inputTokens ??= contextTokens(this.request);
    return this.request.inputTokens;
  }
}
