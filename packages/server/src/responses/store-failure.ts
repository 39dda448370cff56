// A response whose final write failed is reported `failed` to its client. A write that timed out may
// still land later (a stalled backend answers after the gateway gave up), and would then store the
// response as `completed` behind the client's back. So after an unavailable store, the failed response
// (what the client was told) is written, and checked again a few times: a late write that turned it back
// is turned to `failed` again.
import type { ResponseResource } from '@openresponses/types';
import { type ResponsesError, StoreUnavailableError } from '../errors.js';
import type { ResponseStore, StoredResponse } from '../stores/contract.js';

/**
 * When a failed response is written (again) after its write failed, in ms after the failure: at once,
 * then over the next minute (a backend's command timeout and reconnection fit well inside it).
 */
export const FAILED_WRITE_SCHEDULE_MS: readonly number[] = [0, 250, 1_000, 3_000, 10_000, 30_000, 60_000];

/** `response` as its client is told it ended: `failed`, with the store's error. */
export function failedResponse(response: ResponseResource, failure: ResponsesError): ResponseResource {
  return Object.assign({}, response, {
    status: 'failed',
    completed_at: null,
    incomplete_details: null,
    error: { code: failure.code, message: failure.message },
  }) as ResponseResource;
}

/**
 * After `error` from the write of `entry`: when the store was unavailable (the write may yet land), keeps
 * `entry` (a failed response) stored over the schedule, in the background. A definite refusal (too large)
 * stored nothing and needs nothing. A `cancelled` or `failed` record is left as it is.
 */
export function keepFailed(
  store: ResponseStore,
  owner: string,
  entry: StoredResponse,
  error: unknown,
  schedule: readonly number[] = FAILED_WRITE_SCHEDULE_MS,
): Promise<void> | undefined {
  if (!(error instanceof StoreUnavailableError)) return undefined;
  const id = entry.response.id;
  const once = async () => {
    const after = await store.update(id, owner, (current) =>
      current.response.status === 'failed' || current.response.status === 'cancelled' ? undefined : entry,
    );
    if (after === undefined) await store.put(entry, owner);
  };
  return (async () => {
    let waited = 0;
    for (const at of schedule) {
      if (at > waited) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, at - waited);
          timer.unref?.();
        });
        waited = at;
      }
      // The store may still be away: the next round tries again.
      await once().catch(() => {});
    }
  })();
}
