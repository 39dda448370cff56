import type { ItemField, ResponseResource } from '@openresponses/types';
import * as z from 'zod/v4';
import { StoreUnavailableError } from '../errors.js';

/** What a server keeps of a response so that later turns can continue from it. */
export interface StoredResponse {
  /** The response as it was answered. */
  response: ResponseResource;
  /** The turn's own input, normalised to items with ids (what `GET …/input_items` lists). */
  input: ItemField[];
}

/**
 * A stored response's JSON, made once by the turn that answered it and shared with the wire: exactly
 * `JSON.stringify(entry.response)` and `JSON.stringify(entry.input)` of the entry it comes with.
 */
export interface StoredResponseText {
  /** `entry.response` as JSON (the text the client is answered). */
  response: string;
  /** `entry.input` as JSON. */
  input: string;
  /**
   * `input` in pieces, when the turn made it so: their concatenation is `input`, each piece under V8's
   * large-object size (128 KiB) unless one item's JSON is longer. A backend that keeps the text in this
   * process's memory may keep the pieces instead: a long string is fresh memory from the kernel each time one
   * is made, which a long input's pieces are not. Reading `input` then makes that string (once).
   */
  inputPieces?: readonly string[];
}

/** A chain of `previous_response_id` links as one call loads it. */
export interface StoredChain {
  /** The responses found, oldest first, ending with the one asked for. */
  chain: StoredResponse[];
  /**
   * The id of the first link that is not stored (absent, expired, deleted or another owner's); the chain
   * then holds only the turns after it. Undefined when the whole chain was found.
   */
  missing?: string;
}

/**
 * Where responses live between turns: the one contract every backend (memory, Redis, yours) implements
 * and `@openresponses/server/testing`'s `describeStoreContract` checks.
 *
 * - **Ownership.** Every call names the `owner` (the tenant of the API key that made the request). A
 *   response, its chain links and its items are visible only to the owner that stored it: for anyone
 *   else they do not exist (reads answer undefined, `delete` false).
 * - **Copy semantics.** `put` stores a snapshot: changing the object afterwards does not change what is
 *   stored. Every read returns a fresh copy that the caller owns and may change.
 * - **Serialize once.** `put` may be given the entry's JSON (`StoredResponseText`), which the turn made
 *   once for the store and the wire: a backend that keeps JSON keeps that text rather than serializing
 *   `entry` again (strings are immutable, so the snapshot holds). A backend may ignore it.
 * - **Atomicity.** A response and its items are stored together or not at all; `update` is an atomic
 *   read-modify-write, also across processes sharing a backend.
 * - **Finality.** A `cancelled` response is final: `put` does not replace it (and answers false).
 * - **TTL.** Entries expire `ttlMs` after they were last written or read.
 * - **Failures.** A backend that cannot answer throws `StoreUnavailableError` (the service answers 503
 *   `server_error`) and leaves nothing half-written.
 */
export interface ResponseStore {
  /** The stored response `id` of `owner`, or undefined. */
  get(id: string, owner: string): Promise<StoredResponse | undefined>;
  /** The chain that ends at `id`, following `previous_response_id`, in one call (one round trip for networked stores). */
  getChain(id: string, owner: string): Promise<StoredChain>;
  /** An input or output item of any stored response of `owner`, for `item_reference`. */
  getItem(id: string, owner: string): Promise<ItemField | undefined>;
  /**
   * Stores (or replaces) a response with its items; false when a `cancelled` response with this id is stored.
   * `text`, when given, is `entry` as JSON (see `StoredResponseText`), to keep instead of serializing `entry`.
   */
  put(entry: StoredResponse, owner: string, text?: StoredResponseText): Promise<boolean>;
  /**
   * Atomically replaces the stored response with `change(current)`; `change` answering undefined leaves
   * it as it is. Answers what is stored afterwards, or undefined when there is nothing to change.
   */
  update(
    id: string,
    owner: string,
    change: (current: StoredResponse) => StoredResponse | undefined,
  ): Promise<StoredResponse | undefined>;
  /** Deletes the stored response `id` of `owner`; whether there was one. */
  delete(id: string, owner: string): Promise<boolean>;
  /** Releases connections and timers. */
  close?(): Promise<void>;
  /**
   * A store shared by several instances hands out tenant admission over its own connection, so rates, leases,
   * budgets and usage are shared too (the service uses it unless given `quota`).
   */
  quotaBackend?(): QuotaBackend;
}

import type { QuotaBackend } from '../quota.js';

// The store's failures are ground-floor errors (the error mapping names them); stores throw them from here.
export { StoreEntryTooLargeError, StoreUnavailableError } from '../errors.js';

/**
 * A record read back from a backend is not a stored response (corrupted, or written by something else);
 * a `StoreUnavailableError`, so the service answers 503 rather than serving it.
 */
export class StoredRecordError extends StoreUnavailableError {
  /** `'StoredRecordError'`. */
  override name = 'StoredRecordError';
}

/** What a backend's record must look like before it is used (the server wrote it spec-valid; this catches anything else). */
const storedRecordSchema = z.object({
  response: z.looseObject({
    id: z.string(),
    status: z.string(),
    previous_response_id: z.string().nullish(),
    output: z.array(z.looseObject({ type: z.string(), id: z.string().optional() })),
  }),
  input: z.array(z.looseObject({ id: z.string().optional() })),
});

/**
 * A stored response from the JSON text a backend answered, checked before use: throws `StoredRecordError`
 * when it is not JSON, not shaped as a stored response, or (given `id`) is another response.
 */
export function parseStoredResponse(text: string, id?: string): StoredResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StoredRecordError(`The store holds a record that is not JSON${id ? ` for '${id}'` : ''}.`, {
      cause: error,
    });
  }
  const checked = storedRecordSchema.safeParse(parsed);
  if (!checked.success)
    throw new StoredRecordError(
      `The store holds a malformed record${id ? ` for '${id}'` : ''}: ${z.prettifyError(checked.error).slice(0, 300)}`,
      { cause: checked.error },
    );
  if (id !== undefined && checked.data.response.id !== id)
    throw new StoredRecordError(`The store's record for '${id}' holds another response.`);
  // The checked shape, with every field as read (loose objects keep what the schema does not name).
  return parsed as StoredResponse;
}

/** Statuses after which a response no longer changes. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'incomplete', 'cancelled']);

/** Every input and output item of a stored response that has an id. */
export function forEachItem(entry: StoredResponse, visit: (item: ItemField, itemId: string) => void): void {
  for (const list of [entry.input, entry.response.output]) {
    for (const item of list) {
      const itemId = (item as { id?: string }).id;
      if (itemId) visit(item, itemId);
    }
  }
}

/** The item with this id in a stored response, if any. */
export function findItem(entry: StoredResponse, itemId: string): ItemField | undefined {
  let found: ItemField | undefined;
  forEachItem(entry, (item, id) => {
    if (id === itemId && !found) found = item;
  });
  return found;
}
