import { type AnyStreamingEvent, isTerminalEventType } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import { asResponsesError } from '../errors.js';
import type { Backpressure } from '../exchange.js';
import { itemsJsonPieces } from '../input-json.js';
import { responseJson } from '../response-json.js';
import type { ResponseStore, StoredResponseText } from '../stores/contract.js';
import { putAtOnce } from '../stores/memory.js';
import type { TurnEventSink, TurnOptions, TurnOutcome, TurnRunnerOptions } from './runner.js';
import { failedResponse, keepFailed } from './store-failure.js';
import type { StartedTurn } from './turn.js';
import type { TurnResult } from './turn/stream.js';
import type { PreparedTurn } from './turn/prepare.js';
import { liftResponse } from './turn/superset-egress.js';
import { emitter, failedInstead, terminalEventJson } from './turn-events.js';
import { validatorFor } from './validation.js';

/**
 * One run of a started turn to its end: its events out, the outgoing check, storing, the last event. Methods
 * rather than closures made for every turn (one object a turn).
 */
export class TurnEnd {
  /** A stored turn's last event, held until the response is stored: a client never sees a response end that a later GET or continuation cannot find. */
  private last: AnyStreamingEvent | undefined;
  /** A background turn's starting snapshot being stored (so GET finds it at once); the final write waits for it. */
  private starting: Promise<boolean> | undefined;
  /** Where the events go, checked and shaped; undefined when nobody watches (no client, no background start to store). */
  private readonly emit: ((event: AnyStreamingEvent, json?: string) => void) | undefined;

  constructor(
    private readonly runner: TurnRunnerOptions,
    private readonly prepared: PreparedTurn,
    private readonly options: TurnOptions,
    private readonly target: ResponseStore,
    private readonly stored: boolean,
    private readonly onEvent: TurnEventSink | undefined,
  ) {
    // Nobody watches a JSON turn's events: the writer makes none, and the response it answers is the one the
    // events would have built (the checker has no stream to read).
    this.emit =
      onEvent !== undefined || options.background !== undefined
        ? emitter(onEvent, prepared, options.version, runner)
        : undefined;
  }

  run(started: StartedTurn, backpressure: Backpressure | undefined): TurnOutcome | Promise<TurnOutcome> {
    const emit = this.emit;
    const running = started.run(!emit ? undefined : this.stored ? (event) => this.watched(event) : emit, backpressure);
    return running instanceof Promise ? running.then((result) => this.finish(result)) : this.finish(running);
  }

  /** A stored turn's event: its terminal event held until the response is stored; a background start stored. */
  private watched(event: AnyStreamingEvent): void {
    const background = this.options.background;
    if (background && event.type === 'response.created') {
      const snapshot = structuredClone((event as { response: ResponseResource }).response);
      const starting = this.target.put({ response: snapshot, input: this.prepared.input }, this.options.owner);
      this.starting = starting;
      starting.then(
        () => background.stored(snapshot),
        (error: unknown) => {
          background.failed(error);
          this.options.cancellation?.cancel();
        },
      );
    }
    if (isTerminalEventType(event.type)) this.last = event;
    else this.emit!(event);
  }

  private finish(result: TurnResult): TurnOutcome | Promise<TurnOutcome> {
    if (this.runner.validateOutgoing) {
      const version = this.options.version;
      const check = validatorFor(version, 'ResponseResource', this.runner.registry)!(result.response);
      if (!check.success)
        throw new Error(
          `Server bug: an outgoing response breaks the ${version} schema: ${JSON.stringify(check.issues)}`,
        );
    }
    return this.starting ? this.afterStart(this.starting, result) : this.store(result);
  }

  private async afterStart(start: Promise<boolean>, result: TurnResult): Promise<TurnOutcome> {
    let startError: unknown;
    if (await start.catch((error: unknown) => ((startError = error), false))) return this.store(result);
    // Never announced (its start could not be stored): nothing more to store, but a start that lands late
    // must not stay `in_progress`.
    const failure = asResponsesError(startError);
    void keepFailed(
      this.target,
      this.options.owner,
      { response: failedResponse(result.response, failure), input: this.prepared.input },
      startError,
    );
    return this.outcome(result);
  }

  private store(result: TurnResult): TurnOutcome | Promise<TurnOutcome> {
    if (!this.stored) return this.outcome(result);
    const input = this.prepared.input;
    // Serialized once, for the store, the wire's answer or last event, and a connection's cache.
    const json = new TurnText(responseJson(result.response), itemsJsonPieces(input));
    let putting: boolean | Promise<boolean>;
    try {
      putting = putAtOnce(this.target, { response: result.response, input }, this.options.owner, json);
    } catch (error) {
      return this.notStored(result, error);
    }
    return putting instanceof Promise
      ? putting.then(
          () => this.announce(result, json),
          (error: unknown) => this.notStored(result, error),
        )
      : this.announce(result, json);
  }

  private announce(result: TurnResult, json: StoredResponseText): TurnOutcome {
    const last = this.last;
    // Its JSON only for a client that reads events in spec shapes (a lifted event is another object).
    if (last)
      this.emit!(last, this.onEvent && !this.prepared.superset ? terminalEventJson(last, json.response) : undefined);
    return this.outcome(result, json);
  }

  private notStored(result: TurnResult, error: unknown): never {
    const failure = asResponsesError(error);
    const last = this.last;
    if (last) for (const event of failedInstead(last, failure)) this.emit!(event);
    // The client is told `failed`; a write that lands late must not leave it `completed`.
    void keepFailed(
      this.target,
      this.options.owner,
      { response: failedResponse(result.response, failure), input: this.prepared.input },
      error,
    );
    throw failure;
  }

  private outcome(result: TurnResult, json?: StoredResponseText): TurnOutcome {
    const prepared = this.prepared;
    return {
      response: result.response,
      error: result.error,
      input: prepared.input,
      answer: answerOf(prepared, result),
      json,
    };
  }
}

/** The response in the client's shapes: lifted for an OpenAI-superset turn. */
const answerOf = (prepared: PreparedTurn, result: TurnResult): ResponseResource =>
  prepared.superset ? liftResponse(result.response, prepared.superset) : result.response;

/** A stored turn's JSON with its input in pieces (see `StoredResponseText.inputPieces`); `input` joins them when read. */
class TurnText implements StoredResponseText {
  private joined: string | undefined;
  constructor(
    readonly response: string,
    readonly inputPieces: readonly string[],
  ) {}
  get input(): string {
    this.joined ??= this.inputPieces.length === 1 ? this.inputPieces[0]! : this.inputPieces.join('');
    return this.joined;
  }
}
