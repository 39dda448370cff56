/**
 * The test functions the suites register with: pass vitest's or jest's (`{ describe, test, expect }`),
 * so this entry point needs no test framework installed to be imported.
 */
export interface TestFramework {
  describe(name: string, body: () => void): void;
  test(name: string, body: () => Promise<void>): void;
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own matcher types (vitest and jest differ).
  expect(actual: unknown): any;
}
