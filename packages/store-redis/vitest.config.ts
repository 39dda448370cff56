import { defineConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // First the builds the server processes start from (the server's CLI loading this package: test/instances.ts),
    // fresh, then the run's folder.
    globalSetup: [freshBuild, temporaryFolder],
  },
});
