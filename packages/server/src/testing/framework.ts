/**
 * The test functions the suites register with: pass vitest's or jest's (`{ describe, test, expect }`),
 * so this entry point needs no test framework installed to be imported.
 */
export interface TestFramework {
  /** Registers a group of tests. */
  describe(name: string, body: () => void): void;
  /** Runs once after the group's tests (vitest's and jest's `afterAll`); suites that start servers stop them here. */
  afterAll?(body: () => Promise<void>): void;
  /** Registers one test (with its own timeout in ms, when given). */
  test(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  /** Starts an assertion on `actual` (`message` names it in a failure). */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own matcher types (vitest and jest differ).
  expect(actual: unknown, message?: string): any;
}
