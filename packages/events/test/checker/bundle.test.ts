// What a bundler keeps of the stream checker (esbuild, browser ESM, tree-shaken, from the sources like
// packages/client/test/browser.test.ts): the spec's own events are checked by the standalone validators, so
// Zod reaches a bundle only with a Zod schema the program passes itself (`eventSchema`).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));

async function bundle(source: string): Promise<{ zodBytes: number; code: string }> {
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
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs))
    if (/(^|\/)node_modules\/zod\//.test(input)) zodBytes += bytesInOutput;
  return { zodBytes, code: result.outputFiles[0]!.text };
}

const events = `[
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.in_progress', sequence_number: 1, response: { id: 'resp_1', status: 'in_progress', output: [] } },
  { type: 'response.completed', sequence_number: 2, response: { id: 'resp_1', status: 'completed', output: [] } },
]`;

test('createStreamChecker and checkStream without schema validation bundle no Zod, and the bundle runs', async () => {
  const { zodBytes, code } = await bundle(
    `import { checkStream, createStreamChecker } from '@openresponses/events';
     const checker = createStreamChecker({ validateSchemas: false });
     for (const event of ${events}) checker.push(event);
     export const pushed = checker.end({ sawDone: true });
     export const checked = checkStream(${events}, { validateSchemas: false });`,
  );
  expect(zodBytes).toBe(0);
  const bundled = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  // Without schema validation only the ordering rules speak: this stream follows them all.
  expect(bundled.pushed).toEqual([]);
  expect(bundled.checked).toEqual([]);
});

test('the default schema validation bundles no Zod either: the standalone validators check the spec events', async () => {
  const { zodBytes } = await bundle(
    `import { checkStream } from '@openresponses/events'; console.log(checkStream(globalThis.events));`,
  );
  expect(zodBytes).toBe(0);
});

test('a Zod event schema the program passes brings Zod with it (the measure above can see Zod)', async () => {
  const { zodBytes } = await bundle(
    `import * as z from 'zod';
     import { checkStream } from '@openresponses/events';
     console.log(checkStream(globalThis.events, { eventSchema: z.looseObject({ type: z.string() }) }));`,
  );
  expect(zodBytes).toBeGreaterThan(10_000);
});
