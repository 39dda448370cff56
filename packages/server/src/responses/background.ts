import { encodeEvent, SSE_DONE } from '@openresponses/events';
import type { ResponseResource } from '@openresponses/types';
import type { SpecVersion } from '@openresponses/zod';
import { invalidRequest, ResponsesError } from '../errors.js';
import { type Backpressure, json, type ServiceRequest, type ServiceResponse } from '../exchange.js';
import type { ResponseStore, StoredResponse } from '../stores/contract.js';
import { Cancellation } from '../cancellation.js';
import type { TurnRunner } from './runner.js';

const CANCELLED_BY_REQUEST = 'The response was cancelled (POST /v1/responses/{id}/cancel).';

/**
 * Background responses (`background: true`): the turn runs on whatever the client does. Its starting
 * snapshot is stored before the answer (JSON: that snapshot at once; SSE: the events as they come, the
 * stream ending when the client leaves but not the turn). `cancel` marks a queued or running response
 * `cancelled` in the store (final: the turn's later write is refused) and stops the turn if it runs in
 * this process; a turn running elsewhere polls the store and stops when it sees the mark.
 */
export class BackgroundResponses {
  /** Background turns running in this process, by response id. */
  private readonly running = new Map<string, Cancellation>();

  constructor(
    private readonly runner: TurnRunner,
    private readonly store: ResponseStore,
    private readonly pollMs = 250,
  ) {}

  async create(
    request: ServiceRequest,
    body: Record<string, unknown>,
    version: SpecVersion,
    owner: string,
    streaming: boolean,
  ): Promise<ServiceResponse> {
    if (body.store === false)
      throw invalidRequest(
        'invalid_value',
        'background: true needs store: true (a background response is read back with GET /v1/responses/{id}).',
        'background',
      );
    const job = new Cancellation();
    let announce!: { stored(response: ResponseResource): void; failed(error: unknown): void };
    const announced = new Promise<ResponseResource>((resolve, reject) => {
      announce = { stored: resolve, failed: reject };
    });
    const run = await this.runner.begin(body, { version, owner, cancellation: job, background: announce }, streaming);
    if (!streaming) {
      let stopWatching = () => {};
      void run()
        .catch((error: unknown) => {
          if (!(error instanceof ResponsesError)) console.error(error);
        })
        .finally(() => stopWatching());
      const response = await announced;
      stopWatching = this.watch(response.id, owner, job);
      return json(200, response);
    }
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
      body: {
        pipe: async (write: (chunk: string) => void, backpressure?: Backpressure) => {
          let stopWatching = () => {};
          void announced.then(
            (response) => {
              stopWatching = this.watch(response.id, owner, job);
            },
            () => {},
          );
          try {
            // A client that left no longer holds the turn back.
            await run(
              (event) => write(encodeEvent(event)),
              () => (request.cancellation?.cancelled ? undefined : backpressure?.()),
            );
          } catch (error) {
            if (!(error instanceof ResponsesError)) {
              console.error(error);
              throw error;
            }
          } finally {
            stopWatching();
          }
          write(SSE_DONE);
        },
      },
    };
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
