// The scripts some tests run as a child process of their own (test/*-cases.ts, test/*-turns.ts: the SDK's ESM
// builds, which the test runner cannot load, or the API's global providers) run as plain JavaScript on the
// package's build, as the CLI's children do (test-support/server-cli.ts), not from the sources through tsx: tsx's loader
// hooks see every module, ~1.5 s of CPU a script against ~0.4 s. The script alone is compiled (esbuild, a few
// ms), its imports of the package's sources pointed at their builds; the global setup test-support/fresh-build.ts
// makes sure those are fresh.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = path.join(PACKAGE, 'src');
const DIST = path.join(PACKAGE, 'dist');
// In the package (not the run's temporary folder): the scripts' own `createRequire(import.meta.url)` resolves the
// package's dependencies from where the script is.
const OUT = path.join(PACKAGE, 'node_modules/.cache/test-scripts');

const compiled = new Map<string, Promise<string>>();

/** test/<name>.ts compiled (once a process) to run on the build, for `spawn(process.execPath, [script, ...args])`. */
export function builtScript(name: string): Promise<string> {
  let script = compiled.get(name);
  if (!script) {
    script = compile(name);
    compiled.set(name, script);
  }
  return script;
}

async function compile(name: string): Promise<string> {
  const { outputFiles } = await build({
    entryPoints: [path.join(PACKAGE, 'test', `${name}.ts`)],
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'sources-to-build',
        setup(on) {
          on.onResolve({ filter: /^\.\.?\// }, ({ path: specifier, resolveDir }) => {
            const source = path.resolve(resolveDir, specifier);
            if (!source.startsWith(SOURCES + path.sep)) return undefined;
            const built = path.join(DIST, path.relative(SOURCES, source));
            return { path: pathToFileURL(built).href, external: true };
          });
        },
      },
    ],
  });
  // Written whole under another name, then renamed: the suite's other worker may be writing the same script.
  mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `${name}.mjs`);
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, outputFiles[0]!.contents);
  renameSync(partial, file);
  return file;
}
