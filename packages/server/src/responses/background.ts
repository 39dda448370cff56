import type { Context } from '@opentelemetry/api';
import type { AnyStreamingEvent } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import { Cancellation } from '../cancellation.js';
import { invalidRequest, ResponsesError } from '../errors.js';
import type { Backpressure } from '../exchange.js';
import type { ResponseStore, StoredResponse } from '../stores/contract.js';
import type { TurnFacts } from '../telemetry/attributes.js';
import type { TurnRunner } from './runner.js';

const CANCELLED_BY_REQUEST = 'The response was cancelled (POST /v1/responses/{id}/cancel).';

/** Streams a background turn's events; settles when the turn has ended (not when the client leaves). */
export type BackgroundStream = (
  onEvent: (event: AnyStreamingEvent) => void,
  backpressure?: Backpressure,
) => Promise<void>;

export interface BackgroundOptions {
  /** How often a running turn checks the store for a cancel from another instance, in ms (default 250). */
  pollMs?: number;
  /** Longest a turn may run, in ms: then it stops and is stored `failed` with `background_deadline`. */
  deadlineMs: number;
}

/**
 * Background responses (`background: true`): the turn runs on whatever the client does. Its starting
 * snapshot is stored before the answer (`start`: that snapshot; `startStreaming`: the events as they come,
 * the stream ending when the client leaves but not the turn). Every turn has an overall deadline. `cancel`
 * marks a queued or running response `cancelled` in the store (final: the turn's later write is refused)
 * and stops the turn if it runs in this process; a turn running elsewhere polls the store and stops when
 * it sees the mark. Transports answer with what these return.
 */
export class BackgroundResponses {
  /** Background turns running in this process, by response id. */
  private readonly running = new Map<string, Cancellation>();
  private readonly pollMs: number;
  private readonly deadlineMs: number;

  constructor(
    private readonly runner: TurnRunner,
    private readonly store: ResponseStore,
    options: BackgroundOptions,
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.deadlineMs = options.deadlineMs;
  }

  /** How many background turns run in this process now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Starts a turn (traced under `traceContext`, the request's span; its facts noted in `facts`) and answers
   * its stored starting snapshot, and `ended`, which settles (never rejects) once the turn has ended.
   */
  async start(
    body: Record<string, unknown>,
    version: SpecVersion,
    owner: string,
    traceContext?: Context,
    facts?: TurnFacts,
  ): Promise<{ response: ResponseResource; ended: Promise<void> }> {
    const { job, announced, run, finished } = await this.begin(body, version, owner, false, traceContext, facts);
    let stopWatching = () => {};
    const ended = run()
      .then(
        () => {},
        (error: unknown) => {
          if (!(error instanceof ResponsesError)) console.error(error);
        },
      )
      .finally(() => {
        stopWatching();
        finished();
      });
    const response = await announced;
    stopWatching = this.watch(response.id, owner, job);
    return { response, ended };
  }

  /** Starts a turn whose events the caller streams; a client that left (`clientGone`) no longer holds it back. */
  async startStreaming(
    body: Record<string, unknown>,
    version: SpecVersion,
    owner: string,
    clientGone?: Cancellation,
    traceContext?: Context,
    facts?: TurnFacts,
  ): Promise<BackgroundStream> {
    const { job, announced, run, finished } = await this.begin(body, version, owner, true, traceContext, facts);
    return async (onEvent, backpressure) => {
      let stopWatching = () => {};
      void announced.then(
        (response) => {
          stopWatching = this.watch(response.id, owner, job);
        },
        () => {},
      );
      try {
        await run(onEvent, () => (clientGone?.cancelled ? undefined : backpressure?.()));
      } finally {
        stopWatching();
        finished();
      }
    };
  }

  private async begin(
    body: Record<string, unknown>,
    version: SpecVersion,
    owner: string,
    streaming: boolean,
    traceContext: Context | undefined,
    facts: TurnFacts | undefined,
  ) {
    if (body.store === false)
      throw invalidRequest(
        'invalid_value',
        'background: true needs store: true (a background response is read back with GET /v1/responses/{id}).',
        'background',
      );
    const job = new Cancellation();
    // The deadline runs from the request, so a provider that never sends its first part is stopped too.
    const deadline = setTimeout(
      () =>
        job.cancel(
          `The background response ran longer than the server allows (${this.deadlineMs} ms).`,
          'background_deadline',
        ),
      this.deadlineMs,
    );
    deadline.unref?.();
    const finished = () => clearTimeout(deadline);
    let announce!: { stored(response: ResponseResource): void; failed(error: unknown): void };
    const announced = new Promise<ResponseResource>((resolve, reject) => {
      announce = { stored: resolve, failed: reject };
    });
    try {
      const run = await this.runner.begin(
        body,
        { version, owner, cancellation: job, background: announce, traceContext, facts },
        streaming,
      );
      return { job, announced, run, finished };
    } catch (error) {
      finished();
      throw error;
    }
  }

  /** Cancels a queued or running response; a finished one is answered unchanged. Undefined when not found. */
  async cancel(id: string, owner: string): Promise<ResponseResource | undefined> {
    const after = await this.store.update(id, owner, (current) => {
      if (current.response.status !== 'queued' && current.response.status !== 'in_progress') return undefined;
      return Object.assign({}, current, {
        response: Object.assign({}, current.response, { status: 'cancelled' }),
      }) as StoredResponse;
    });
    this.running.get(id)?.cancel(CANCELLED_BY_REQUEST);
    return after?.response;
  }

  /** Registers a running turn and polls the store for a cancel from another instance; answers the stop. */
  private watch(id: string, owner: string, job: Cancellation): () => void {
    this.running.set(id, job);
    const poll = setInterval(() => {
      this.store.get(id, owner).then(
        (current) => {
          if (current?.response.status === 'cancelled') job.cancel(CANCELLED_BY_REQUEST);
        },
        () => {}, // The store is away: the turn goes on, and its final write reports the outage.
      );
    }, this.pollMs);
    poll.unref?.();
    return () => {
      clearInterval(poll);
      this.running.delete(id);
    };
  }
}
