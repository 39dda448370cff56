// Shared vitest settings: tests run on package sources through the `@openresponses/source` export condition, so no build is needed.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The global setup every test config lists: one temporary folder per run, checked empty and removed at its end. */
export const temporaryFolder = fileURLToPath(new URL('./test-support/temp-folder.ts', import.meta.url));

/** The global setup, listed before the temporary folder's, of a suite that starts its package's built CLI: that build, fresh. */
export const freshBuild = fileURLToPath(new URL('./test-support/fresh-build.ts', import.meta.url));

export const sourceConditions = ['@openresponses/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@openresponses/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: [temporaryFolder],
    // The type tests (*.test-d.ts) are compiled by each package's typecheck task (tsc over src and test, where a
    // false expectTypeOf is a compile error); vitest's typecheck would run that whole tsc again in the test task
    // (zod: 46 of its 80 s of CPU time).
    typecheck: { enabled: false },
    // Test workers run Node with the `module` condition too, and @opentelemetry/api's `module` build has
    // extensionless imports only bundlers resolve: it, and the packages that import it (ai, @anthropic-ai/sdk),
    // go through vite like sources instead of Node's loader.
    server: { deps: { inline: [/@opentelemetry\/api/, /node_modules\/ai\//, /node_modules\/@anthropic-ai\/sdk\//] } },
    // A hang guard, not a time bound: ten times the slowest idle test that sets none of its own (the compliance
    // CLI's usage test starts seven child processes, ~5.5 s; at load 8 it crossed 30 s).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
