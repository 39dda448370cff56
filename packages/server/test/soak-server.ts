// The soak's server: the reference server (`startServer`, as the CLI runs it) in a child process that
// answers the soak's questions over IPC: its memory (`process.memoryUsage()`, optionally after a full
// collection) and the in-memory store's own byte and entry counts, which tell when the store has reached its bounds.
// Run by test/soak.ts with --expose-gc; not meant to be started by hand.
import { InMemoryResponseStore } from '@openresponses/server';
import { startServer } from '@openresponses/server/node';
import { getHeapSpaceStatistics } from 'node:v8';

export interface SoakStats {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  storeBytes: number;
  storeEntries: number;
  /** Committed bytes of V8's heap spaces by name (old_space, new_space, large_object_space, code_space, …). */
  spaces: Record<string, number>;
  /** The store is at one of its bounds: 90% of its bytes, or its most entries (it evicts from there on). */
  storeFull: boolean;
}

export type SoakRequest = { type: 'stats'; gc: boolean };
export type SoakMessage = { type: 'listening'; url: string } | ({ type: 'stats' } & SoakStats);

const [key, maxBytes, maxEntries, stalledWriteMs] = process.argv.slice(2).map(String);
const store = new InMemoryResponseStore({ maxBytes: Number(maxBytes), maxEntries: Number(maxEntries) });
const server = await startServer({
  apiKeys: [key!],
  store,
  limits: { stalledWriteMs: Number(stalledWriteMs) },
  warn: () => {},
});
const send = (message: SoakMessage) => process.send!(message);
send({ type: 'listening', url: server.url });
process.on('message', (request: SoakRequest) => {
  if (request.type !== 'stats') return;
  if (request.gc) (globalThis as { gc?: () => void }).gc?.();
  const memory = process.memoryUsage();
  send({
    type: 'stats',
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    heapTotal: memory.heapTotal,
    external: memory.external,
    arrayBuffers: memory.arrayBuffers,
    storeBytes: store.bytes,
    storeEntries: store.size,
    spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size])),
    storeFull: store.bytes >= 0.9 * Number(maxBytes) || store.size >= Number(maxEntries),
  });
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
