// Vitest global setup: one scratch project for every runtime test, holding the packed packages (installed
// from their tarballs, as a user gets them) and the guest scripts that run inside each runtime.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { entryPoints, installTarballs, packAll, publicPackages } from '../../test-support/tarballs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The scratch project: `node_modules` with the installed tarballs, and `guest/` with the guest scripts. */
    consumer: string;
  }
}

/** Entry points that need Node's APIs by design, with the reason: workerd is expected to refuse them. */
export const NODE_ONLY_ENTRIES: Record<string, string> = {
  '@openresponses/server/node': 'the Node entry: serves on node:http with WebSockets from ws',
  '@openresponses/codegen': 'a build-time tool: reads and writes files with node:fs and runs ts-morph',
  '@openresponses/server/testing':
    'test helpers for Node: a replay upstream on node:http and WebSocket clients from ws beside the store contract suites',
  '@openresponses/store-redis': 'a Redis client over TCP sockets (ioredis on node:net)',
};

/** The matrix row of an entry point: its package, or the entry itself for a Node-only subpath (`server/node`). */
export const rowOf = (entry: string) => (entry in NODE_ONLY_ENTRIES ? entry : entry.split('/').slice(0, 2).join('/'));

export const allEntries = publicPackages.flatMap(entryPoints);
/** The entry points DESIGN.md promises run on web-standard APIs alone (browsers, Deno, Bun, workers). */
export const webEntries = allEntries.filter((s) => !(s in NODE_ONLY_ENTRIES));

/** `guest/web-entries.mjs`: imports every web-standard entry point statically, so a bundler for workerd sees them all. */
const webEntriesModule = (specifiers: string[]) =>
  [
    ...specifiers.map((s, i) => `import * as m${i} from ${JSON.stringify(s)};`),
    `export const entries = { ${specifiers.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(', ')} };`,
    '',
  ].join('\n');

export default async function setup(project: TestProject): Promise<() => void> {
  const work = mkdtempSync(path.join(tmpdir(), 'openresponses-runtimes-'));
  const remove = () => rmSync(work, { recursive: true, force: true });
  const consumer = path.join(work, 'consumer');
  try {
    await installTarballs(consumer, await packAll(work));
    const guest = path.join(consumer, 'guest');
    cpSync(fileURLToPath(new URL('./guest', import.meta.url)), guest, { recursive: true });
    writeFileSync(path.join(guest, 'web-entries.mjs'), webEntriesModule(webEntries));
  } catch (error) {
    remove(); // vitest runs no teardown for a setup that failed.
    throw error;
  }
  project.provide('consumer', consumer);
  return remove;
}
