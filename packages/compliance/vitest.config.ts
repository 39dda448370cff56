import { defineConfig } from 'vitest/config';
import shared, { freshBuild, temporaryFolder } from '../../vitest.shared.js';

// The CLI's tests start it from the package's build: first that build, fresh, then the run's temporary folder.
export default defineConfig({ ...shared, test: { ...shared.test, globalSetup: [freshBuild, temporaryFolder] } });
