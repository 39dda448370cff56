// A response reported `failed` to its client is never left stored as `completed` (issue 23): a store
// whose final write times out but lands later (a stalled backend), a store that is down for a while, for
// streamed, JSON and background turns. The store is the real in-memory store behind a fault injector that
// stalls or fails its writes of finished responses.
import type { AnyStreamingEvent } from '@openresponses/events';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { StoreUnavailableError } from '../src/errors.js';
import type { RunningServer } from '../src/node/index.js';
import type { ResponseStore, StoredResponse } from '../src/stores/contract.js';
import { InMemoryResponseStore } from '../src/stores/memory.js';
import { post, startTestServer, stream } from './harness.js';

/**
 * The memory store, with the next `count` writes of a finished response made to fail: `late` ones answer
 * `StoreUnavailableError` after `timeoutMs` and then land `landAfterMs` later (a backend that stalled past
 * the caller's timeout); `down` ones fail without landing.
 */
class FaultyStore implements ResponseStore {
  readonly inner = new InMemoryResponseStore();
  /** Ids whose faulty write was made, and when each late write landed. */
  readonly faulted: string[] = [];
  readonly landed: Promise<void>[] = [];
  private remaining = 0;
  private mode: 'late' | 'down' = 'late';

  constructor(
    private readonly timeoutMs = 30,
    private readonly landAfterMs = 400,
  ) {}

  failNext(count: number, mode: 'late' | 'down'): void {
    this.remaining = count;
    this.mode = mode;
  }

  put(entry: StoredResponse, owner: string): Promise<boolean> {
    const finished = !['queued', 'in_progress'].includes(entry.response.status);
    if (!finished || this.remaining === 0 || entry.response.status === 'failed') return this.inner.put(entry, owner);
    this.remaining--;
    this.faulted.push(entry.response.id);
    if (this.mode === 'late') {
      const copy = structuredClone(entry);
      this.landed.push(
        new Promise((resolve) =>
          setTimeout(() => void this.inner.put(copy, owner).then(() => resolve()), this.timeoutMs + this.landAfterMs),
        ),
      );
    }
    return new Promise((_resolve, reject) =>
      setTimeout(() => reject(new StoreUnavailableError('the store timed out')), this.timeoutMs),
    );
  }

  get = (id: string, owner: string) => this.inner.get(id, owner);
  getChain = (id: string, owner: string) => this.inner.getChain(id, owner);
  getItem = (id: string, owner: string) => this.inner.getItem(id, owner);
  update = (id: string, owner: string, change: (current: StoredResponse) => StoredResponse | undefined) =>
    this.inner.update(id, owner, change);
  delete = (id: string, owner: string) => this.inner.delete(id, owner);
}

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every owner the server wrote for (the test key's tenant is a digest of it). */
const owners = new Set<string>();

/** The status the store holds for `id`, read as the server's tenant. */
async function statusOf(store: FaultyStore, id: string): Promise<string | undefined> {
  for (const owner of owners) {
    const found = await store.inner.get(id, owner);
    if (found) return found.response.status;
  }
  return undefined;
}

/** Records the owner of every write, so the test can read the store as the server's tenant. */
function remembering(store: FaultyStore): FaultyStore {
  const put = store.put.bind(store);
  store.put = (entry, owner) => {
    owners.add(owner);
    return put(entry, owner);
  };
  return store;
}

/** Waits until every late write landed and the reconciliation after it ran, then reads the final status. */
async function settledStatus(store: FaultyStore, id: string): Promise<string | undefined> {
  await Promise.all(store.landed);
  // The status must be failed now and stay failed: check over a few rounds of the reconciliation.
  await vi.waitFor(async () => expect(await statusOf(store, id)).toBe('failed'), { timeout: 10_000, interval: 50 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  return statusOf(store, id);
}

describe('a response reported failed is never stored as completed', () => {
  test('streamed: the final write times out and lands later', async () => {
    const store = remembering(new FaultyStore());
    server = await startTestServer({ store });
    store.failNext(1, 'late');
    const { events } = await stream(server, { model: 'openresponses-deterministic', input: 'Hello there' });
    const last = events.at(-1) as AnyStreamingEvent & { response: { id: string; status: string } };
    expect(last.type).toBe('response.failed');
    expect(events.some((e) => e.type === 'error')).toBe(true);
    expect(store.faulted).toEqual([last.response.id]);
    expect(await settledStatus(store, last.response.id)).toBe('failed');
    // And a GET says what the stream said.
    const got = (await (
      await fetch(`${server.url}/v1/responses/${last.response.id}`, {
        headers: { authorization: 'Bearer test-key-0123456789' },
      })
    ).json()) as { status: string; error: { code: string } };
    expect(got).toMatchObject({ status: 'failed', error: { code: 'store_unavailable' } });
  });

  test('JSON: the client gets a 503, and the late write does not leave a completed response', async () => {
    const store = remembering(new FaultyStore());
    server = await startTestServer({ store });
    store.failNext(1, 'late');
    const response = await post(server, '/v1/responses', { model: 'openresponses-deterministic', input: 'Hi' });
    expect(response.status).toBe(503);
    expect(store.faulted).toHaveLength(1);
    expect(await settledStatus(store, store.faulted[0]!)).toBe('failed');
  });

  test('a store that is down, then back: the failed response is stored once it answers', async () => {
    const store = remembering(new FaultyStore());
    server = await startTestServer({ store });
    store.failNext(1, 'down');
    const { events } = await stream(server, { model: 'openresponses-deterministic', input: 'Hello again' });
    const last = events.at(-1) as AnyStreamingEvent & { response: { id: string } };
    expect(last.type).toBe('response.failed');
    expect(await settledStatus(store, last.response.id)).toBe('failed');
  });

  test('background: the final write times out and lands later; a poll never sees it completed', async () => {
    const store = remembering(new FaultyStore());
    server = await startTestServer({ store });
    store.failNext(1, 'late');
    const { events } = await stream(server, {
      model: 'openresponses-deterministic',
      input: 'Hello in the background',
      background: true,
    });
    const last = events.at(-1) as AnyStreamingEvent & { response: { id: string } };
    expect(last.type).toBe('response.failed');
    expect(store.faulted).toEqual([last.response.id]);
    expect(await settledStatus(store, last.response.id)).toBe('failed');
  });
});
