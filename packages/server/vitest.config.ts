import { configDefaults, defineConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

// Most files run without per-file isolation (one module graph a worker: the suite's import time was 95 of its
// 545 s on a 2-core machine); the files that read the process's own metrics state (a module singleton a
// provider registers into) keep their own.
const ISOLATED = [
  'test/metrics-clock.test.ts',
  'test/metrics-lookups.test.ts',
  'test/metrics-providers.test.ts',
  'test/metrics-registration.test.ts',
];

// The projects take the shared settings but the global setup, which the root runs once for both (one temporary
// folder a run, not one inside another: Chromium's socket path would pass its length limit).
const { globalSetup: _once, ...sharedTest } = shared.test ?? {};
// Every file's hooks (CLI children stopped, served streams checked), run before each file in both projects.
const project = { ...sharedTest, setupFiles: ['test/setup.ts'] };

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    // First the build the CLI's child processes start from, fresh (test-support/server-cli.ts), then the run's folder.
    globalSetup: [freshBuild, temporaryFolder],
    projects: [
      {
        ...shared,
        test: { ...project, name: 'shared', isolate: false, exclude: [...configDefaults.exclude, ...ISOLATED] },
      },
      { ...shared, test: { ...project, name: 'isolated', include: ISOLATED } },
    ],
  },
});
