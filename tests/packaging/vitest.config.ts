import { defineConfig } from 'vitest/config';
import { temporaryFolder } from '../../vitest.shared.js';

export default defineConfig({
  test: { include: ['*.test.ts'], globalSetup: [temporaryFolder], testTimeout: 300_000, hookTimeout: 300_000 },
});
