import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Sources through the `@openresponses/source` condition (the shared settings); each test drives real agent
// processes, so the timeouts are longer than the packages' own.
export default mergeConfig(
  shared,
  defineConfig({
    test: { include: ['*.test.ts'], typecheck: { enabled: false }, testTimeout: 120_000, hookTimeout: 60_000 },
  }),
);
