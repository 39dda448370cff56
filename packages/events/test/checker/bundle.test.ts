// What a bundler keeps of the stream checker (esbuild, browser ESM, tree-shaken, from the sources like
// packages/client/test/browser.test.ts): the spec's own events are checked by the standalone validators, so
// Zod reaches a bundle only with a Zod schema the program passes itself (`eventSchema`), and only the
// spec-exact event validator of each version (`validateStreamingEventExactByVersion`), never the
// forward-compatible ones nor the other schemas' (the `versions` map kept them all: 227,853 bytes minified,
// 36,140 gzip; now 86,990 and 14,873, of which the two versions' event checks are 66 KB).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The ceiling of the checker's bundle, minified: 87 KB measured, with room for a new rule or two. */
const MAX_CHECKER_BYTES = 95_000;
/** The same, gzip: 14.9 KB measured. */
const MAX_CHECKER_GZIP_BYTES = 16_500;

async function bundle(
  source: string,
): Promise<{ zodBytes: number; forwardBytes: number; bytes: number; gzipBytes: number; code: string }> {
  const result = await build({
    stdin: { contents: source, resolveDir: here, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['@openresponses/source'],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  let zodBytes = 0;
  let forwardBytes = 0;
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    if (/(^|\/)node_modules\/zod\//.test(input)) zodBytes += bytesInOutput;
    if (/\/validate\/[^/]+\/forward\.gen\.ts$/.test(input)) forwardBytes += bytesInOutput;
  }
  const file = result.outputFiles[0]!;
  return {
    zodBytes,
    forwardBytes,
    bytes: file.contents.byteLength,
    gzipBytes: gzipSync(file.contents).byteLength,
    code: file.text,
  };
}

const events = `[
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.completed', sequence_number: 2, response: { id: 'resp_1', status: 'completed', output: [] } },
]`;

test('createStreamChecker and checkStream without schema validation bundle no Zod, and the bundle runs', async () => {
  const { zodBytes, forwardBytes, bytes, gzipBytes, code } = await bundle(
    `import { checkStream, createStreamChecker } from '@openresponses/events';
     const checker = createStreamChecker({ validateSchemas: false });
     for (const event of ${events}) checker.push(event);
     export const pushed = checker.end({ sawDone: true });
     export const checked = checkStream(${events}, { validateSchemas: false });`,
  );
  expect(zodBytes).toBe(0);
  expect(forwardBytes).toBe(0);
  expect(bytes).toBeLessThan(MAX_CHECKER_BYTES);
  expect(gzipBytes).toBeLessThan(MAX_CHECKER_GZIP_BYTES);
  const bundled = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  // Without schema validation only the ordering rules speak: this stream follows them all.
  expect(bundled.pushed).toEqual([]);
  expect(bundled.checked).toEqual([]);
});

test('the default schema validation bundles no Zod either: the standalone validators check the spec events', async () => {
  const { zodBytes, forwardBytes, bytes } = await bundle(
    `import { checkStream } from '@openresponses/events'; console.log(checkStream(globalThis.events));`,
  );
  expect(zodBytes).toBe(0);
  expect(forwardBytes).toBe(0);
  expect(bytes).toBeLessThan(MAX_CHECKER_BYTES);
});

test('the versions map of every validator is over the ceiling and brings the forward validators (the measures above can see them)', async () => {
  const { forwardBytes, bytes } = await bundle(
    `import { versions } from '@openresponses/types/validate';
     import { checkStream } from '@openresponses/events';
     console.log(checkStream(globalThis.events), versions);`,
  );
  expect(forwardBytes).toBeGreaterThan(10_000);
  expect(bytes).toBeGreaterThan(MAX_CHECKER_BYTES);
});

test('a Zod event schema the program passes brings Zod with it (the measure above can see Zod)', async () => {
  const { zodBytes } = await bundle(
    `import * as z from 'zod';
     import { checkStream } from '@openresponses/events';
     console.log(checkStream(globalThis.events, { eventSchema: z.looseObject({ type: z.string() }) }));`,
  );
  expect(zodBytes).toBeGreaterThan(10_000);
});
