// The tests Bun and Deno share: the packed packages imported and exercised inside the runtime (compared
// with the same run in Node), the fetch handler on the runtime's own server driven by the openai SDK
// from Node, and our client inside the runtime against it.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
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
import { allEntries, NODE_ONLY_ENTRIES, rowOf, webEntries } from './consumer.js';
import { IMPORTS, Observations } from './matrix.js';
import { runGuest, runtimeBinary, startGuestServer, type GuestRuntime, type GuestServer } from './runtimes.js';

export function describeGuestRuntime(runtime: Exclude<GuestRuntime, 'node'>, title: string): void {
  describe(title, () => {
    const consumer = inject('consumer');
    const binary = runtimeBinary(runtime);
    const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim().split('\n')[0]!;
    const observed = new Observations(title, `npm \`${runtime}\` ${/\d+\.\d+\.\d+/.exec(version)?.[0]}`);
    let reference: SuiteResult;
    let guest: SuiteResult;
    let server: GuestServer;

    beforeAll(async () => {
      const input = suiteInput(consumer);
      [reference, guest, server] = await Promise.all([
        runGuest('node', consumer, ['suite', input]) as Promise<SuiteResult>,
        runGuest(runtime, consumer, ['suite', input]) as Promise<SuiteResult>,
        startGuestServer(runtime, consumer, API_KEY),
      ]);
    });
    afterAll(() => server?.stop());

    test('imports every public entry point of the tarballs, with the same exports as in Node', async () => {
      const [inNode, inRuntime] = await Promise.all([
        runGuest('node', consumer, ['imports', ...allEntries]),
        runGuest(runtime, consumer, ['imports', ...allEntries], { allowEnv: true }),
      ]);
      expect(Object.keys(inNode as object)).toEqual(allEntries);
      expect(inRuntime).toEqual(inNode);
      for (const row of new Set(allEntries.map(rowOf))) observed.works(row, IMPORTS);
      // The suite imported the web-standard ones again, without any permission beyond reading them.
      expectSuiteFacts(reference);
      expect(guest.exports).toEqual(reference.exports);
      expect(Object.keys(guest.exports)).toEqual(webEntries);
      expect(guest.types).toEqual(reference.types);
      observed.works('@openresponses/types', 'constant tables (spec versions, event types) as in Node');
    });

    if (runtime === 'deno')
      test('the Node-only entry points need --allow-env in Deno; the web-standard ones do not', async () => {
        for (const entry of Object.keys(NODE_ONLY_ENTRIES)) {
          const error = await runGuest(runtime, consumer, ['imports', entry]).catch((e: Error) => e);
          expect(error).toBeInstanceOf(Error);
          // Which variable a dependency reads first changes with their versions: the reason names none.
          expect((error as Error).message).toMatch(/Requires env access/);
          observed.limit(
            rowOf(entry),
            `Deno: importing \`${entry}\` needs \`--allow-env\` (its dependencies read environment variables)`,
          );
        }
      });

    test('validates good and bad payloads with the Zod schemas as Node does', () => {
      expect(Object.keys(guest.zod)).toEqual(Object.keys(reference.zod));
      expect(guest.zod).toEqual(reference.zod);
      for (const target of Object.keys(guest.zod))
        observed.works('@openresponses/zod', `validates good and bad payloads (${target})`);
      expect(guest.extensions).toEqual(reference.extensions);
      observed.works('@openresponses/extensions', 'validates vendor items, refuses bad slugs');
    });

    test('decodes, checks and accumulates recorded SSE streams as Node does', () => {
      expect(guest.events).toEqual(reference.events);
      observed.works('@openresponses/events', 'decodes, checks and accumulates recorded SSE');
    });

    test('serves createResponsesHandler; the openai SDK drives it from Node', async () => {
      await driveWithOpenAI(server.url);
      await expectFailingStream(server.url);
      await expectBadRequest(server.url);
      observed.works(
        '@openresponses/server',
        `serves the fetch handler with ${runtime === 'bun' ? 'Bun.serve' : 'Deno.serve'} (openai SDK: JSON, streaming, tool round trip, previous_response_id, errors)`,
      );
    });

    test(`WebSocket mode: ${runtime === 'bun' ? "Bun.serve's websocket handlers" : 'Deno.upgradeWebSocket'} drive the service's session`, async () => {
      await driveWebSocket(server.url);
      observed.works(
        '@openresponses/server',
        `WebSocket mode through ${runtime === 'bun' ? 'Bun.serve' : 'Deno.upgradeWebSocket'} and the transport-neutral session (our client over ws from Node: turns, store:false continuation, error envelope, refused upgrade)`,
      );
    });

    test('runs our client inside the runtime against that server', async () => {
      expectClientReport(await runGuest(runtime, consumer, ['client', `${server.url}/v1`, API_KEY]));
      observed.works(
        '@openresponses/client',
        'create, stream, runAgent tool round trip, previous_response_id, typed errors',
      );
    });

    test("runs our client's WebSocket session inside the runtime, on its own WebSocket", async () => {
      expect(await runGuest(runtime, consumer, ['socket-client', `${server.url}/v1`, API_KEY])).toEqual({
        continued: true,
        text: 'Your name is Ada.',
      });
      observed.works(
        '@openresponses/client',
        "WebSocket session on the runtime's own WebSocket (store:false continuation)",
      );
    });

    test('the matrix results match what these tests observed', async () => {
      await expect(`${JSON.stringify(observed.results(), null, 2)}\n`).toMatchFileSnapshot(`./results/${runtime}.json`);
    });
  });
}
