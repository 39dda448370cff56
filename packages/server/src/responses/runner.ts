import type { AnyStreamingEvent } from '@openresponses/events';
import type { Registry } from '@openresponses/extensions';
import type { ItemField, ResponseResource } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import { ResponsesError } from '../errors.js';
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
import { type Sealer, sealerFor } from './sealed.js';
import type { IngressProfile } from './turn/superset.js';
import { startTurn } from './turn.js';
import type { TurnResult } from './turn/stream.js';
import { prepareTurn, type TurnDependencies } from './turn/prepare.js';
import { TurnEnd } from './turn-end.js';
import { clock } from '../telemetry/clock.js';

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
   * Called once when the turn has ended, before its caller hears of it, with its response, or undefined when
   * it produced none (it failed before its model answered, or its response could not be stored): the usage
   * account (service/tenant-turns.ts). What it returns is awaited.
   */
  ended?: (response: ResponseResource | undefined) => Promise<void> | undefined;
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
  /** What is noted in a turn's `facts` when it has ended (service/telemetry.ts's `turnNotes`). */
  notes?: TurnNotes;
}

/**
 * Notes a turn's end in its `TurnFacts` for the request log and metrics. The runner calls it as the turn
 * ends, in the promise callbacks it makes anyway, so noting costs a turn no promise of its own.
 */
export interface TurnNotes {
  /** The turn ended with `outcome` (completed, incomplete, failed or cancelled). */
  ended(facts: TurnFacts, outcome: TurnOutcome): void;
  /** The turn threw, as it began or as it ran. */
  failed(facts: TurnFacts, error: unknown): void;
}

export function createTurnRunner(options: TurnRunnerOptions): TurnRunner {
  const { store, registry, limits, notes } = options;
  // Metric label values: only the model names the providers list (asked only while metrics are on).
  const modelLabels = new ModelLabels(() => options.providers.map(listedModelNames));
  // The last tenant's dependencies on the runner's own store are kept: most turns in a row are one tenant's.
  let last: { owner: string; deps: TurnDependencies } | undefined;
  const depsFor = (owner: string, from: ResponseStore = store): TurnDependencies => {
    if (from !== store) return new StoreDependencies(depsFor(owner), from, owner);
    if (last?.owner === owner) return last.deps;
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
    last = { owner, deps };
    return deps;
  };

  const begin: TurnRunner['begin'] = async (raw, turnOptions, watched) => {
    try {
      const startedAt = clock.now();
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
      const run: RunTurn = (onEvent, backpressure = turnOptions.backpressure) => {
        let outcome: TurnOutcome | Promise<TurnOutcome>;
        try {
          // Synchronous while nothing waits (the embedded model's turn into the memory store): one promise a turn.
          outcome = new TurnEnd(options, prepared, turnOptions, target, stored, onEvent).run(started, backpressure);
        } catch (error) {
          outcome = Promise.reject(error);
        }
        return endedWith(outcome, turnOptions.ended, turnOptions.facts, notes, meter);
      };
      return run;
    } catch (error) {
      // The turn ends here: it never ran.
      if (turnOptions.facts) notes?.failed(turnOptions.facts, error);
      await turnOptions.ended?.(undefined);
      throw error;
    }
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

type RunTurn = Awaited<ReturnType<TurnRunner['begin']>>;

/**
 * An owner's dependencies reading through another store than the runner's (a traced turn's store spans, a WebSocket
 * session's cache), made per turn: the owner's own ones (made once, its sealer too) and the store's two reads, each
 * function made when it is read (a turn that continues none reads no chain). Before, a traced turn made all of
 * them again: ~0.2 KB a traced gateway turn (sampling heap profiler).
 */
class StoreDependencies implements TurnDependencies {
  readonly registry: Registry | undefined;
  readonly providers: ModelProvider[];
  readonly defaultModel: string;
  readonly sealer: Sealer;
  readonly limits: ServerLimits | undefined;
  readonly ingress: IngressProfile | undefined;

  constructor(
    owners: TurnDependencies,
    private readonly from: ResponseStore,
    private readonly owner: string,
  ) {
    this.registry = owners.registry;
    this.providers = owners.providers;
    this.defaultModel = owners.defaultModel;
    this.sealer = owners.sealer;
    this.limits = owners.limits;
    this.ingress = owners.ingress;
  }

  get loadChain(): TurnDependencies['loadChain'] {
    const { from, owner } = this;
    return (id) => from.getChain(id, owner);
  }

  get lookupItem(): TurnDependencies['lookupItem'] {
    const { from, owner } = this;
    return (id) => from.getItem(id, owner);
  }
}

/**
 * A turn's outcome once it is noted in `facts`, told to its `meter` (while metrics are on) and `ended` has been
 * told of it (with its response, or undefined when it threw). The meter is told here, in the callbacks the
 * turn's end takes anyway, rather than by an async wrapper around the run (one promise and frame a turn more).
 */
function endedWith(
  outcome: TurnOutcome | Promise<TurnOutcome>,
  ended: TurnOptions['ended'],
  facts: TurnFacts | undefined,
  notes: TurnNotes | undefined,
  meter: TurnMeter | undefined,
): Promise<TurnOutcome> {
  const noting = facts !== undefined ? notes : undefined;
  if (outcome instanceof Promise)
    return ended || noting || meter
      ? outcome.then(
          (value) => {
            noting?.ended(facts!, value);
            meter?.ended(failureCodeOf(value));
            return ended ? afterEnding(ended(value.response), value) : value;
          },
          async (error: unknown) => {
            noting?.failed(facts!, error);
            meter?.ended(errorTypeOf(error));
            await ended?.(undefined);
            throw error;
          },
        )
      : outcome;
  noting?.ended(facts!, outcome);
  meter?.ended(failureCodeOf(outcome));
  return Promise.resolve(ended ? afterEnding(ended(outcome.response), outcome) : outcome);
}

/** `value` once `ending` (what an `ended` hook returned) has settled. */
const afterEnding = <T>(ending: Promise<void> | undefined, value: T): T | Promise<T> =>
  ending ? ending.then(() => value) : value;

/** A turn's `error.type` for its metrics: the failure's code of a failed or cancelled response, else undefined. */
function failureCodeOf(outcome: TurnOutcome): string | undefined {
  const status = outcome.response.status;
  return status === 'failed' || status === 'cancelled'
    ? (outcome.error?.code ?? outcome.response.error?.code ?? status)
    : undefined;
}

/** `error.type` of a turn that threw: its spec error code, or `_OTHER` (the conventions' fallback). */
const errorTypeOf = (error: unknown) => (error instanceof ResponsesError ? error.code : '_OTHER');
