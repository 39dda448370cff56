import { defineConfig } from 'vitest/config';
import { sourceConditions, temporaryFolder } from '../../vitest.shared.js';

// Package sources through the `@openresponses/source` condition, as in the packages' own tests.
export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@openresponses/source'] } },
  test: { include: ['*.test.ts'], globalSetup: [temporaryFolder], testTimeout: 600_000, hookTimeout: 600_000 },
});
