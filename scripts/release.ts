// npm run release -- --registry <url> [--tag <dist-tag>]: build every package, then `changeset publish` to
// exactly that registry. Refuses without an explicit --registry, and when an npm registry setting in the
// environment disagrees with it: `changeset publish` reads only a lower-case `npm_config_registry` and
// otherwise sends every package to the public registry, whatever an upper-case NPM_CONFIG_REGISTRY says.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { repoRoot } from './repo-root.js';

const SCOPE = '@openresponses';
const usage = `usage: npm run release -- --registry <url> [--tag <dist-tag>]
  --registry is required: the public registry is https://registry.npmjs.org/ and must be named to be used.`;

function refuse(message: string): never {
  console.error(`release: ${message}\n${usage}`);
  process.exit(2);
}

let values: { registry?: string; tag?: string };
try {
  ({ values } = parseArgs({ options: { registry: { type: 'string' }, tag: { type: 'string' } } }));
} catch (error) {
  refuse((error as Error).message);
}
const registry = values.registry;
if (!registry) refuse('no registry target; nothing was published.');
if (!URL.canParse(registry) || !/^https?:$/.test(new URL(registry).protocol))
  refuse(`--registry '${registry}' is not an http(s) URL.`);

const sameRegistry = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
/** Every spelling npm accepts for the settings that choose where our packages go. */
const registryVariables = Object.keys(process.env).filter((name) =>
  ['npm_config_registry', `npm_config_${SCOPE}:registry`].includes(name.toLowerCase()),
);
for (const name of registryVariables) {
  const value = process.env[name]!;
  if (value && !sameRegistry(value, registry))
    refuse(`${name}=${value} disagrees with --registry ${registry}; unset it or pass the same URL.`);
}

const env = { ...process.env };
for (const name of registryVariables) delete env[name];
// Lower-case is what changesets reads; the scoped setting is what npm uses for @openresponses packages.
env.npm_config_registry = registry;
env[`npm_config_${SCOPE}:registry`] = registry;

const run = (command: string, args: string[]) => {
  console.log(`release: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`release: ${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
};
run('npx', ['turbo', 'run', 'build']);
run('npx', ['changeset', 'publish', ...(values.tag ? ['--tag', values.tag] : [])]);
console.log(`release: published to ${registry}`);
