// The hooks every test file of this package gets, as vitest's `setupFiles` (run before each file). A helper
// module's own top-level hooks would not do: in the project without per-file isolation a module is loaded once a
// worker, so its hooks belonged to the first file that imported it and every later file ran without them (CLI
// children left running after the suite, served streams left unchecked).
import { afterAll, afterEach, expect } from 'vitest';
import { stopStartedClis } from './cli-process.js';
import { takeBrokenStreams } from './served-streams.js';

// The streams a test server served during a test (test/harness.ts' middleware) are spec-valid.
const expectNoBrokenStreams = () =>
  expect(takeBrokenStreams(), 'streams the server served that break the spec').toEqual([]);

afterEach(() => {
  stopStartedClis();
  expectNoBrokenStreams();
});
afterAll(expectNoBrokenStreams);
