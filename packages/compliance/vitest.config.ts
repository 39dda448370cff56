import { defineConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

// The CLI's tests start it from the package's build: first that build, fresh, then the run's temporary folder.
// No per-file isolation: the files share one module graph (the run has one worker on 2 cores), none of them
// changes module state another reads, and they pass in order and shuffled (import 8.2 -> 5.1 s).
export default defineConfig({
  ...shared,
  test: { ...shared.test, globalSetup: [freshBuild, temporaryFolder], isolate: false },
});
