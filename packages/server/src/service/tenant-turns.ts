import type { ResponseResource } from '@openresponses/types';
import type { TurnUsage } from '../quota.js';
import type { TurnOptions, TurnRunner } from '../responses/runner.js';
import type { AdmittedTurn, TenantQuota } from '../tenant-quota.js';

/**
 * `runner` with every turn admitted by `quota` (model access, turn lease, token reservation) before it starts,
 * and settled with its response's usage when it ends, whichever transport runs it (HTTP JSON and SSE, WebSocket,
 * background, chat completions) and however it ends (completed, incomplete, failed, cancelled).
 */
export function admittedRunner(runner: TurnRunner, quota: TenantQuota, defaultModel: string): TurnRunner {
  const begin: TurnRunner['begin'] = (raw, options, watched) => {
    const body = (raw ?? {}) as {
      model?: unknown;
      max_output_tokens?: unknown;
      input?: unknown;
      instructions?: unknown;
    };
    const model = typeof body.model === 'string' && body.model !== '' ? body.model : defaultModel;
    const maxOutput =
      typeof body.max_output_tokens === 'number' &&
      Number.isSafeInteger(body.max_output_tokens) &&
      body.max_output_tokens > 0
        ? body.max_output_tokens
        : undefined;
    const admitting = quota.startTurn(options.owner, model, maxOutput, body);
    return admitting instanceof Promise
      ? admitting.then((admitted) => admittedBegin(admitted, raw, options, watched))
      : admittedBegin(admitting, raw, options, watched);
  };
  // The runner tells the account when the turn has ended (however it ended), before its caller hears of it:
  // usage read after a turn's answer includes it.
  const admittedBegin = (
    admitted: AdmittedTurn,
    raw: unknown,
    options: TurnOptions,
    watched: boolean,
  ): ReturnType<TurnRunner['begin']> => {
    if (options.facts) options.facts.headers = admitted.headers;
    const ended = (response: ResponseResource | undefined) => {
      let ending: Promise<void> | undefined;
      try {
        ending = admitted.end(response && { model: response.model, usage: usageOf(response) });
      } catch (error) {
        unaccounted(error);
      }
      return ending?.catch(unaccounted);
    };
    try {
      return runner.begin(raw, turnOptionsWith(options, ended, options.traceContext, options.facts), watched);
    } catch (error) {
      // The runner tells `ended` of a turn that fails to begin; a layer above it that throws cannot.
      ended(undefined);
      return Promise.reject(error);
    }
  };
  return Object.assign({}, runner, {
    begin,
    turn: async (raw: unknown, options: Parameters<TurnRunner['turn']>[1]) =>
      (await begin(raw, options, options.onEvent !== undefined))(options.onEvent),
  });
}

/**
 * `options` with its `ended`, `traceContext` and `facts` given, as a literal of every field: V8 copies it at a
 * fixed shape, where `Object.assign`'s generic copy cost ~1.4k instructions a turn (and a spread of a turn's
 * options took the generic path too); the type fails to compile until a new field is copied here.
 */
export function turnOptionsWith(
  options: TurnOptions,
  ended: TurnOptions['ended'],
  traceContext: TurnOptions['traceContext'],
  facts: TurnOptions['facts'],
): TurnOptions {
  const copy: { [K in keyof Required<TurnOptions>]: TurnOptions[K] } = {
    version: options.version,
    owner: options.owner,
    store: options.store,
    onEvent: options.onEvent,
    cancellation: options.cancellation,
    backpressure: options.backpressure,
    background: options.background,
    schema: options.schema,
    facts,
    ended,
    traceContext,
  };
  return copy;
}

const unaccounted = (error: unknown) =>
  console.warn(`WARNING: a turn's usage could not be accounted: ${(error as Error).message}`);

/** A response's usage as the account keeps it (missing fields count 0). */
function usageOf(response: ResponseResource): TurnUsage {
  const usage = response.usage as
    | {
        input_tokens?: number;
        output_tokens?: number;
        input_tokens_details?: { cached_tokens?: number };
        output_tokens_details?: { reasoning_tokens?: number };
      }
    | null
    | undefined;
  const count = (value: number | undefined) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  return {
    inputTokens: count(usage?.input_tokens),
    cachedTokens: count(usage?.input_tokens_details?.cached_tokens),
    outputTokens: count(usage?.output_tokens),
    reasoningTokens: count(usage?.output_tokens_details?.reasoning_tokens),
  };
}
