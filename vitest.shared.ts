// Shared vitest settings: tests run on package sources through the `@openresponses/source` export condition, so no build is needed.
import { defineConfig } from 'vitest/config';

export const sourceConditions = ['@openresponses/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@openresponses/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Test workers run Node with the `module` condition too, and @opentelemetry/api's `module` build has
    // extensionless imports only bundlers resolve: it, and the packages that import it (ai, @anthropic-ai/sdk),
    // go through vite like sources instead of Node's loader.
    server: { deps: { inline: [/@opentelemetry\/api/, /node_modules\/ai\//, /node_modules\/@anthropic-ai\/sdk\//] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
