import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['*.test.ts'], globalSetup: ['./consumer.ts'], testTimeout: 120_000, hookTimeout: 240_000 },
});
