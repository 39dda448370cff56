import { defineConfig } from 'vitest/config';
import { temporaryFolder } from '../../vitest.shared.js';

export default defineConfig({
  test: {
    include: ['*.test.ts'],
    globalSetup: [temporaryFolder, './consumer.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
