#!/usr/bin/env node
// openresponses-server: runs the built CLI (dist/node/cli.js, always in the published package). In a checkout
// of the repository before `npm run build`, it runs the TypeScript sources instead, so `npx
// openresponses-server` works right after `npm ci` (npm links a bin only if its file exists at install time).
import { existsSync } from 'node:fs';

const built = new URL('../dist/node/cli.js', import.meta.url);
if (existsSync(built)) await import(built.href);
else {
  const { runFromSource } = await import('../../../scripts/run-from-source.mjs');
  await runFromSource(new URL('../src/node/cli.ts', import.meta.url), {
    name: 'openresponses-server',
    playground: true,
  });
}
