// DESIGN.md: types, zod, events, extensions and client (and the server's fetch-style entry) use only
// web-standard APIs. Checked on the built output as published: esbuild follows each entry point through
// the package's own files (other packages stay external) and lists every Node built-in they import.
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { expect, inject, test } from 'vitest';
import { webEntries } from './consumer.js';

const builtins = new Set(builtinModules);
const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!);

test.each(webEntries)('%s imports no node: module', async (entry) => {
  const consumer = inject('consumer');
  const { metafile } = await build({
    stdin: { contents: `export * from ${JSON.stringify(entry)};`, resolveDir: consumer, loader: 'js' },
    absWorkingDir: consumer,
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Only this package's files: its dependencies are checked as their own entries (or are not ours).
    plugins: [
      {
        name: 'other-packages-external',
        setup(build) {
          const own = `${entry.split('/').slice(0, 2).join('/')}`;
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path === own || args.path.startsWith(`${own}/`) || args.importer === '<stdin>'
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  const ownFiles = Object.keys(metafile.inputs).filter((file) => file.includes('node_modules/@openresponses/'));
  expect(ownFiles.length, 'esbuild read none of the package files').toBeGreaterThan(0);
  const offenders = Object.entries(metafile.inputs).flatMap(([file, input]) =>
    input.imports.filter((i) => isNodeBuiltin(i.path)).map((i) => `${path.basename(file)} imports ${i.path}`),
  );
  expect(offenders).toEqual([]);
});
