import { defineConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

// No per-file isolation: the files share one module graph a worker, none of them changes module state another
// reads (no mocks, no environment set), and they pass in order and shuffled. On the 2-core Xeon at load 4-9, four
// runs each side: CPU median 54 -> 49 s, wall 72-86 -> 55-76 s, import 9-14 -> 4-7 s.
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // First the builds the server processes start from (the server's CLI loading this package: test/instances.ts),
    // fresh, then the run's folder.
    globalSetup: [freshBuild, temporaryFolder],
    isolate: false,
  },
});
