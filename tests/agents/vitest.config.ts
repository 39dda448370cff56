import { defineConfig, mergeConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

// Sources through the `@openresponses/source` condition (the shared settings); each test drives real agent
// processes, so the timeouts are longer than the packages' own. The server's CLI runs from its build
// (server.ts): first that build, fresh, then the run's folder.
export default mergeConfig(
  { ...shared, test: { ...shared.test, globalSetup: [] } },
  defineConfig({
    test: {
      include: ['*.test.ts'],
      globalSetup: [freshBuild, temporaryFolder],
      typecheck: { enabled: false },
      testTimeout: 120_000,
      hookTimeout: 60_000,
    },
  }),
);
