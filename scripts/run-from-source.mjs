// The bin shims' way to run a CLI from its TypeScript sources, in a checkout of this repository before
// `npm run build` (after `npm ci`, `npx openresponses-server` and `npx openresponses-compliance` work at
// once). Published packages always hold dist/, so their shims never come here. The first run in a fresh
// checkout generates packages/{types,zod}/src/generated/ (and, for the server, the playground page), with
// that progress on stderr so stdout stays the CLI's own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const root = new URL('../', import.meta.url);

/** A module hook that resolves workspace packages to their sources (the `@openresponses/source` condition). */
const SOURCE_CONDITION = `export async function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, '@openresponses/source'] });
}`;

/** Runs `entry` (a .ts file URL) in this process, after making what the sources need but the checkout lacks. */
export async function runFromSource(entry, { name, playground = false }) {
  const generated = ['types', 'zod'].every((p) =>
    existsSync(new URL(`packages/${p}/src/generated/versions.gen.ts`, root)),
  );
  if (!generated)
    prepare(name, 'generating packages/types and packages/zod from the spec documents', [
      '--import',
      'tsx',
      '--conditions=@openresponses/source',
      'scripts/generate.ts',
    ]);
  if (playground && !existsSync(new URL('packages/playground/dist/index.js', root)))
    prepare(name, 'building the playground page', ['packages/playground/build.mjs']);
  register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION)}`);
  const { register: registerTypeScript } = await import('tsx/esm/api');
  registerTypeScript();
  await import(entry.href);
}

function prepare(name, what, args) {
  process.stderr.write(`${name}: first run from the sources in this checkout: ${what}…\n`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) {
    process.stderr.write(`${name}: ${what} failed (exit ${result.status ?? result.signal}); see above.\n`);
    process.exit(1);
  }
}
