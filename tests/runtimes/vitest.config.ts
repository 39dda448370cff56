import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['*.test.ts'], globalSetup: ['./consumer.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
