// workerd (Cloudflare's Workers runtime) through Miniflare: the packed packages bundled as a Worker the
// way wrangler does (esbuild, `workerd`/`worker`/`browser` conditions, no Node compatibility), the fetch
// handler served by the Worker (JSON, streams, errors), the suite inside the Worker, and our client inside
// the Worker calling the Node reference server.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { build, type BuildFailure } from 'esbuild';
import { Miniflare, type MiniflareOptions } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { NODE_ONLY_ENTRIES, rowOf, webEntries } from './consumer.js';
import {
  API_KEY,
  driveWebSocket,
  driveWithOpenAI,
  expectBadRequest,
  expectClientReport,
  expectFailingStream,
  expectSuiteFacts,
  suiteInput,
  type SuiteResult,
} from './drive.js';
import { IMPORTS, Observations } from './matrix.js';
import { runGuest } from './runtimes.js';

const workerdVersion = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('workerd/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** The optional peer dependencies (`peerDependenciesMeta`) of the package an entry point belongs to. */
function optionalPeers(consumer: string, entry: string): Set<string> {
  const name = entry
    .split('/')
    .slice(0, entry.startsWith('@') ? 2 : 1)
    .join('/');
  const manifest = JSON.parse(readFileSync(path.join(consumer, 'node_modules', name, 'package.json'), 'utf8')) as {
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  };
  return new Set(
    Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional === true)
      .map(([peer]) => peer),
  );
}

/** Bundles a Worker from the scratch project the way wrangler does without `nodejs_compat`. */
async function bundleWorker(consumer: string, entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: consumer,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * A Miniflare whose own temporary folder (`<os.tmpdir()>/miniflare-<random>`, read in its constructor, which its
 * `dispose` removes without waiting) is made in `folder`, so the test removes it once the Worker is disposed.
 */
function miniflareIn(folder: string, options: MiniflareOptions): Miniflare {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  try {
    return new Miniflare(options);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

describe('workerd', () => {
  const consumer = inject('consumer');
  const observed = new Observations('workerd', `npm \`miniflare\` with \`workerd\` ${workerdVersion}`);
  let worker: Miniflare;
  let url: string;
  let reference: RunningServer;
  const miniflareTemp = mkdtempSync(path.join(tmpdir(), 'openresponses-miniflare-'));

  beforeAll(async () => {
    const script = await bundleWorker(consumer, 'guest/worker.mjs');
    worker = miniflareIn(miniflareTemp, {
      modules: true,
      script,
      compatibilityDate: '2026-04-01',
      bindings: { API_KEY },
      host: '127.0.0.1',
      port: 0,
    });
    [url, reference] = await Promise.all([
      worker.ready.then((u) => u.href.replace(/\/$/, '')),
      startServer({ apiKeys: [API_KEY], validateOutgoing: true, warn: () => {} }),
    ]);
  });
  afterAll(async () => {
    await worker?.dispose();
    await reference?.close();
    rmSync(miniflareTemp, { recursive: true, force: true, maxRetries: 5 });
  });

  test('the web-standard entry points bundle for workerd and run there as in Node', async () => {
    const input = readFileSync(suiteInput(consumer), 'utf8');
    const [inNode, inWorker] = await Promise.all([
      runGuest('node', consumer, ['suite', path.join(consumer, 'suite-input.json')]) as Promise<SuiteResult>,
      fetch(`${url}/suite`, { method: 'POST', body: input }).then((r) => r.json() as Promise<SuiteResult>),
    ]);
    expectSuiteFacts(inNode);
    expect(inWorker).toEqual(inNode);
    expect(Object.keys(inWorker.exports)).toEqual(webEntries);
    for (const row of new Set(webEntries.map(rowOf))) observed.works(row, IMPORTS);
    observed.works('@openresponses/types', 'constant tables (spec versions, event types) as in Node');
    for (const target of Object.keys(inWorker.zod))
      observed.works('@openresponses/zod', `validates good and bad payloads (${target})`);
    observed.works('@openresponses/extensions', 'validates vendor items, refuses bad slugs');
    observed.works('@openresponses/events', 'decodes, checks and accumulates recorded SSE');
  });

  test('the fetch handler as a Worker: the openai SDK drives it (JSON, streams, errors)', async () => {
    await driveWithOpenAI(url);
    await expectFailingStream(url);
    await expectBadRequest(url);
    observed.works(
      '@openresponses/server',
      'serves the fetch handler as a Worker (openai SDK: JSON, streaming, tool round trip, previous_response_id, errors)',
    );
  });

  test("WebSocket mode: a WebSocketPair drives the service's session", async () => {
    await driveWebSocket(url);
    observed.works(
      '@openresponses/server',
      'WebSocket mode through a WebSocketPair and the transport-neutral session (our client over ws from Node: turns, store:false continuation, error envelope, refused upgrade)',
    );
  });

  test('our client inside the Worker calls the Node reference server', async () => {
    const response = await fetch(`${url}/client`, {
      method: 'POST',
      body: JSON.stringify({ baseURL: `${reference.url}/v1`, apiKey: API_KEY }),
    });
    expectClientReport(await response.json());
    observed.works(
      '@openresponses/client',
      'create, stream, runAgent tool round trip, previous_response_id, typed errors (against the Node server)',
    );
  });

  test('a Worker that builds createResponsesHandler at module scope starts and serves (construction draws no random values)', async () => {
    const moduleScope = miniflareIn(miniflareTemp, {
      modules: true,
      script: await bundleWorker(consumer, 'guest/worker-module-scope.mjs'),
      compatibilityDate: '2026-04-01',
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const base = (await moduleScope.ready).href.replace(/\/$/, '');
      const post = (body: object) =>
        fetch(`${base}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer module-scope-key' },
          body: JSON.stringify({ model: 'openresponses-deterministic', ...body }),
        });
      const created = await post({ input: 'Hello! My name is Ada.' });
      expect(created.status).toBe(200);
      const response = (await created.json()) as { id: string; status: string };
      expect(response.status).toBe('completed');
      // The encryption key generated on first use seals reasoning, and the same handler opens it again.
      const reasoned = (await (
        await post({ input: 'Think first. [think]', include: ['reasoning.encrypted_content'], store: false })
      ).json()) as { output: Array<{ type: string; encrypted_content?: string }> };
      const reasoning = reasoned.output.find((item) => item.type === 'reasoning');
      expect(reasoning?.encrypted_content).toMatch(/^or3\./);
      const continued = await post({ input: [reasoning, { role: 'user', content: 'And now?' }], store: false });
      expect(continued.status).toBe(200);
      expect((await post({ previous_response_id: response.id, input: 'What is my name?' })).status).toBe(200);
    } finally {
      await moduleScope.dispose();
    }
    observed.works(
      '@openresponses/server',
      'a Worker that builds the handler at module scope starts and serves (its encryption key made on first use)',
    );
  });

  test('the Node-only entry points do not bundle for workerd', async () => {
    for (const [entry, reason] of Object.entries(NODE_ONLY_ENTRIES)) {
      const failure = await bundleWorker(consumer, entry).catch((error: BuildFailure) => error);
      expect(failure, entry).toBeInstanceOf(Error);
      const unresolved = (failure as BuildFailure).errors
        .map((e) => /Could not resolve "([^"]+)"/.exec(e.text)?.[1])
        .filter((name): name is string => name !== undefined);
      expect(unresolved.length, JSON.stringify((failure as BuildFailure).errors)).toBeGreaterThan(0);
      expect(unresolved.filter(isBuiltin).length, entry).toBeGreaterThan(0);
      // Besides Node's built-ins, only the package's optional peer dependencies (not installed here: the
      // Node-only features that load them by dynamic import, such as the OpenTelemetry SDK, are not used).
      const peers = optionalPeers(consumer, entry);
      const missingPeers = unresolved.filter((m) => !isBuiltin(m) && peers.has(m));
      expect(unresolved.filter((m) => !isBuiltin(m) && !peers.has(m))).toEqual([]);
      // The modules themselves are left out of the reason, so the matrix does not change with each new import.
      observed.unsupported(
        entry,
        `workerd: \`${entry}\` is ${reason}; without \`nodejs_compat\` a Worker cannot resolve its Node built-in imports${
          missingPeers.length > 0 ? ' (nor its optional peer dependencies, which are not installed)' : ''
        }`,
      );
    }
  });

  test('the matrix results match what these tests observed', async () => {
    await expect(`${JSON.stringify(observed.results(), null, 2)}\n`).toMatchFileSnapshot('./results/workerd.json');
  });
});
