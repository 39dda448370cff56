// Shared vitest settings: tests run on package sources through the `@openresponses/source` export condition, so no build is needed.
import { defineConfig } from 'vitest/config';

export const sourceConditions = ['@openresponses/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@openresponses/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // @opentelemetry/api's `module` build has extensionless imports that only bundlers resolve: packages that
    // import it (ai, the server) get it through vite, like sources, instead of from Node's loader.
    server: { deps: { inline: [/@opentelemetry\/api/, /node_modules\/ai\//] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
