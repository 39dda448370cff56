import { type AnyStreamingEvent, createStreamChecker, TERMINAL_EVENT_TYPES } from '@openresponses/events';
import type { Registry } from '@openresponses/extensions';
import type { ItemField, ResponseResource } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import { asResponsesError, ResponsesError } from '../errors.js';
import { itemsJson, responseJson } from '../response-json.js';
import type { Backpressure } from '../exchange.js';
import type { ServerLimits } from '../limits.js';
import type { ModelProvider } from '../models/provider.js';
import type { Context } from '@opentelemetry/api';
import type { ResponseStore, StoredResponseText } from '../stores/contract.js';
import { storeSpans } from '../stores/store-spans.js';
import type { Cancellation } from '../cancellation.js';
import { listedModelNames } from '../models/model-list.js';
import { meterTurn, type TurnMeter } from '../telemetry/metrics.js';
import { ModelLabels } from '../telemetry/model-labels.js';
import type { TurnFacts } from '../telemetry/attributes.js';
import { openAIEventNames } from './compat.js';
import { type Sealer, sealerFor } from './sealed.js';
import { failedResponse, keepFailed } from './store-failure.js';
import { liftEvents, liftResponse } from './turn/superset-egress.js';
import type { IngressProfile } from './turn/superset.js';
import { startTurn } from './turn.js';
import type { TurnResult } from './turn/stream.js';
import { type PreparedTurn, prepareTurn, type TurnDependencies } from './turn/prepare.js';
import { validatorFor } from './validation.js';

export interface TurnOptions {
  version: SpecVersion;
  /** The tenant the turn runs for: it sees and stores only its own responses. */
  owner: string;
  /** Where this turn's context is read and its response stored (default the runner's store; WebSocket sessions layer their cache over it). */
  store?: ResponseStore;
  onEvent?: TurnEventSink;
  cancellation?: Cancellation;
  /** Pauses the turn while the client is behind on reading. */
  backpressure?: Backpressure;
  /** A background turn: its starting snapshot is stored first, then told here (or the failure to store it). */
  background?: { stored(response: ResponseResource): void; failed(error: unknown): void };
  schema?: 'CreateResponseBodySchema' | 'WebSocketResponseCreateEventSchema';
  /** Where the turn's instrumentation (service/) notes its model, provider and usage for the request log and metrics. */
  facts?: TurnFacts;
  /**
   * The OpenTelemetry context the turn runs in: the request's server span, which the instrumentation
   * replaces with the turn's own span; the runner makes its store calls and the provider's upstream calls
   * children of it (undefined while nothing is traced).
   */
  traceContext?: Context;
}

/**
 * Where a turn's events go. `json`, when given, is `JSON.stringify(event)` already made: a stored turn's last
 * event carries the response text it stored, which a transport sends rather than serializing it again.
 */
export type TurnEventSink = (event: AnyStreamingEvent, json?: string) => void;

export type TurnOutcome = TurnResult & {
  input: ItemField[];
  /** The response in the client's shapes (`response` lifted for an OpenAI-superset turn; `response` otherwise). */
  answer: ResponseResource;
  /**
   * `response` and `input` as JSON, when the turn made them (it stored the response): made once for the
   * store, the wire (when `answer` is `response`) and the WebSocket connection's cache.
   */
  json?: StoredResponseText;
};

/** Runs `response.create` turns for every transport: validation, context, model, events, outgoing checks, storing. */
export interface TurnRunner {
  /**
   * Phase one (validation, context and the model's first part; its errors are plain JSON errors), returning
   * phase two, which streams the rest to `onEvent`. `watched`: a client sees the deltas as they come
   * (otherwise each text goes to the writer whole).
   */
  begin(
    raw: unknown,
    options: TurnOptions,
    watched: boolean,
  ): Promise<(onEvent?: TurnEventSink, backpressure?: Backpressure) => Promise<TurnOutcome>>;
  /** Both phases at once. */
  turn(raw: unknown, options: TurnOptions): Promise<TurnOutcome>;
  /** What a turn (or a compaction) needs, reading only `owner`'s responses from `from`. */
  depsFor(owner: string, from?: ResponseStore): TurnDependencies;
  /** Where responses are stored. */
  readonly store: ResponseStore;
  /** The budgets turns run under. */
  readonly limits: ServerLimits;
  /** The providers, in routing order. */
  readonly providers: readonly ModelProvider[];
}

export interface TurnRunnerOptions {
  providers: ModelProvider[];
  defaultModel: string;
  sealer: Sealer;
  store: ResponseStore;
  limits: ServerLimits;
  registry?: Registry;
  /** Validates every outgoing payload; a violation is a server bug and fails loudly. */
  validateOutgoing?: boolean;
  /** `openai`: events renamed for the official SDK's stream helper (see `ResponsesServiceOptions.compatibility`). */
  compatibility?: 'openai';
  /** Which request shapes are read (default `openai-superset`; see `ResponsesServiceOptions.ingress`). */
  ingress?: IngressProfile;
}

const TERMINAL_EVENTS: ReadonlySet<string> = new Set(TERMINAL_EVENT_TYPES);

export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const { store, registry, validateOutgoing, limits } = options;
  // Metric label values: only the model names the providers list (asked only while metrics are on).
  const modelLabels = new ModelLabels(() => options.providers.map(listedModelNames));
  // The last tenant's dependencies on the runner's own store are kept: most turns in a row are one tenant's.
  let last: { owner: string; deps: TurnDependencies } | undefined;
  const depsFor = (owner: string, from: ResponseStore = store): TurnDependencies => {
    if (from === store && last?.owner === owner) return last.deps;
    const deps: TurnDependencies = {
      providers: options.providers,
      defaultModel: options.defaultModel,
      loadChain: (id) => from.getChain(id, owner),
      lookupItem: (id) => from.getItem(id, owner),
      // Sealed content is bound to the tenant here, on the path every turn and compaction takes.
      sealer: sealerFor(options.sealer, owner),
      registry,
      limits,
      ingress: options.ingress,
    };
    if (from === store) last = { owner, deps };
    return deps;
  };

  const checkOutgoing = (version: SpecVersion, response: unknown) => {
    if (!validateOutgoing) return;
    const result = validatorFor(version, 'ResponseResource', registry)!(response);
    if (!result.success)
      throw new Error(
        `Server bug: an outgoing response breaks the ${version} schema: ${JSON.stringify(result.issues)}`,
      );
  };

  const begin: TurnRunner['begin'] = async (raw, turnOptions, watched) => {
    const startedAt = performance.now();
    const target = storeSpans(turnOptions.store ?? store, turnOptions.traceContext);
    const deps = depsFor(turnOptions.owner, target);
    const preparing = prepareTurn(raw, turnOptions.version, deps, turnOptions.schema);
    const prepared = preparing instanceof Promise ? await preparing : preparing;
    const stored = prepared.body.store !== false;
    // Undefined while no metrics SDK is registered.
    const meter = meterTurn(
      startedAt,
      prepared.model,
      prepared.provider.genAiProvider ?? prepared.provider.name,
      watched,
      modelLabels,
    );
    let started: Awaited<ReturnType<typeof startTurn>>;
    try {
      const starting = startTurn(
        prepared,
        deps,
        {
          cancellation: turnOptions.cancellation,
          wholeDeltas: !watched,
          traceContext: turnOptions.traceContext,
          facts: turnOptions.facts,
        },
        meter,
      );
      started = starting instanceof Promise ? await starting : starting;
    } catch (error) {
      meter?.ended(errorTypeOf(error));
      throw error;
    }
    if (started.upstream && turnOptions.facts) turnOptions.facts.upstream = started.upstream;
    const run: Awaited<ReturnType<TurnRunner['begin']>> = async (onEvent, backpressure = turnOptions.backpressure) => {
      // Nobody watches a JSON turn's events (no client, no background start to store): the writer makes none,
      // and the response it answers is the one the events would have built (the checker has no stream to read).
      const background = turnOptions.background;
      const listening = onEvent !== undefined || background !== undefined;
      const emit = listening ? emitter(onEvent, prepared, turnOptions.version, options) : undefined;
      // A stored turn's last event waits until the response is stored: a client never sees a response end
      // that a later GET or continuation cannot find.
      let last: AnyStreamingEvent | undefined;
      // A background turn stores its starting snapshot (so GET finds it at once); the final write waits for it.
      let starting: Promise<boolean> | undefined;
      const result = await started.run(
        !emit
          ? undefined
          : stored
            ? (event) => {
                if (background && event.type === 'response.created') {
                  const snapshot = structuredClone((event as { response: ResponseResource }).response);
                  starting = target.put({ response: snapshot, input: prepared.input }, turnOptions.owner);
                  starting.then(
                    () => background.stored(snapshot),
                    (error: unknown) => {
                      background.failed(error);
                      turnOptions.cancellation?.cancel();
                    },
                  );
                }
                if (TERMINAL_EVENTS.has(event.type)) last = event;
                else emit(event);
              }
            : emit,
        backpressure,
      );
      checkOutgoing(turnOptions.version, result.response);
      let startError: unknown;
      if (starting && !(await starting.catch((error: unknown) => ((startError = error), false)))) {
        // Never announced (its start could not be stored): nothing more to store, but a start that lands
        // late must not stay `in_progress`.
        const failure = asResponsesError(startError);
        void keepFailed(
          target,
          turnOptions.owner,
          { response: failedResponse(result.response, failure), input: prepared.input },
          startError,
        );
        return {
          response: result.response,
          error: result.error,
          input: prepared.input,
          answer: answerOf(prepared, result),
        };
      }
      let json: StoredResponseText | undefined;
      if (stored) {
        // Serialized once, for the store, the wire's answer or last event, and a connection's cache.
        json = { response: responseJson(result.response), input: itemsJson(prepared.input) };
        try {
          await target.put({ response: result.response, input: prepared.input }, turnOptions.owner, json);
        } catch (error) {
          const failure = asResponsesError(error);
          if (last) for (const event of failedInstead(last, failure)) emit!(event);
          // The client is told `failed`; a write that lands late must not leave it `completed`.
          void keepFailed(
            target,
            turnOptions.owner,
            { response: failedResponse(result.response, failure), input: prepared.input },
            error,
          );
          throw failure;
        }
        // Its JSON only for a client that reads events in spec shapes (a lifted event is another object).
        if (last) emit!(last, onEvent && !prepared.superset ? terminalEventJson(last, json.response) : undefined);
      }
      return {
        response: result.response,
        error: result.error,
        input: prepared.input,
        answer: answerOf(prepared, result),
        json,
      };
    };
    return meter ? metered(run, meter) : run;
  };

  return {
    begin,
    turn: async (raw, turnOptions) =>
      (await begin(raw, turnOptions, turnOptions.onEvent !== undefined))(turnOptions.onEvent),
    depsFor,
    store,
    limits,
    providers: options.providers,
  };
}

/** The response in the client's shapes: lifted for an OpenAI-superset turn. */
const answerOf = (prepared: PreparedTurn, result: TurnResult): ResponseResource =>
  prepared.superset ? liftResponse(result.response, prepared.superset) : result.response;

/**
 * Where a watched turn's events go: checked (with `validateOutgoing`), renamed (`compatibility: 'openai'`) or
 * lifted to superset shapes, then to `onEvent`. Made only for a turn someone listens to.
 */
function emitter(
  onEvent: TurnEventSink | undefined,
  prepared: PreparedTurn,
  version: SpecVersion,
  options: { validateOutgoing?: boolean; registry?: Registry; compatibility?: 'openai' },
): (event: AnyStreamingEvent, json?: string) => void {
  const checker = options.validateOutgoing
    ? (options.registry?.createStreamChecker() ?? createStreamChecker({ specVersion: version }))
    : undefined;
  const rename = options.compatibility === 'openai' ? openAIEventNames() : undefined;
  // The turn runs and is checked and stored in spec shapes; a superset turn's events are lifted last.
  const lift = prepared.superset ? liftEvents(prepared.superset) : undefined;
  const send = (event: AnyStreamingEvent, json?: string) => {
    const outgoing = rename ? rename(event) : event;
    if (outgoing) onEvent!(outgoing, outgoing === event ? json : undefined);
  };
  return (event, json) => {
    if (checker) {
      const violations = checker.push(event).filter((v) => v.severity === 'error');
      if (violations.length > 0)
        throw new Error(`Server bug: an outgoing event breaks the stream rules: ${JSON.stringify(violations)}`);
    }
    if (!onEvent) return;
    if (lift) for (const lifted of lift(event)) send(lifted);
    else send(event, json);
  };
}

/** Stands for the response in a terminal event's JSON until its text takes the place (no event field can hold it). */
const RESPONSE_MARK = '\u0000response\u0000';
const RESPONSE_MARK_JSON = JSON.stringify(RESPONSE_MARK);

/**
 * `JSON.stringify(event)` of a terminal event, given its response's JSON, without serializing the response
 * again. The event carries the writer's final response and the turn's result is the accumulator's copy of it
 * (the same fields in the same order), so the stored text is its text: the stream ends with what GET answers
 * (test/serialize-once.test.ts). The event's other fields keep their places.
 */
function terminalEventJson(event: AnyStreamingEvent, responseJson: string): string {
  return JSON.stringify(Object.assign({}, event, { response: RESPONSE_MARK })).replace(
    RESPONSE_MARK_JSON,
    () => responseJson,
  );
}

/** The events that end a stream whose response could not be stored, in place of its last event. */
function failedInstead(last: AnyStreamingEvent, failure: ResponsesError): AnyStreamingEvent[] {
  const { sequence_number, response } = last as unknown as { sequence_number: number; response: ResponseResource };
  const error = { type: failure.type, code: failure.code, message: failure.message, param: failure.param };
  return [
    { type: 'error', sequence_number, error } as unknown as AnyStreamingEvent,
    {
      type: 'response.failed',
      sequence_number: sequence_number + 1,
      response: failedResponse(response, failure),
    } as unknown as AnyStreamingEvent,
  ];
}

type RunTurn = Awaited<ReturnType<TurnRunner['begin']>>;

/** `run`, telling `meter` how the turn ended. */
function metered(run: RunTurn, meter: TurnMeter): RunTurn {
  return async (onEvent, backpressure) => {
    let outcome: TurnOutcome;
    try {
      outcome = await run(onEvent, backpressure);
    } catch (error) {
      meter.ended(errorTypeOf(error));
      throw error;
    }
    const status = outcome.response.status;
    meter.ended(
      status === 'failed' || status === 'cancelled'
        ? (outcome.error?.code ?? outcome.response.error?.code ?? status)
        : undefined,
    );
    return outcome;
  };
}

/** `error.type` of a turn that threw: its spec error code, or `_OTHER` (the conventions' fallback). */
const errorTypeOf = (error: unknown) => (error instanceof ResponsesError ? error.code : '_OTHER');
