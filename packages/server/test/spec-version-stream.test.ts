// A turn streamed in each spec version the server speaks passes the stream checker of that version: the
// server's own outgoing check (validateOutgoing) and the harness's, both picked by OpenResponses-Version.
import { SPEC_VERSIONS } from '@openresponses/zod';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import { startTestServer, stream } from './harness.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

test.each(SPEC_VERSIONS)('%s: reasoning and text stream by the rules of that version', async (version) => {
  const { events, violations, sawDone } = await stream(
    server,
    { model: 'openresponses-deterministic', input: 'Hello [think]' },
    { 'openresponses-version': version },
  );
  expect(violations).toEqual([]);
  expect(sawDone).toBe(true);
  const types = new Set(events.map((e) => e.type));
  expect(types).toContain('response.output_text.delta');
  expect(types).toContain('response.reasoning_summary_text.delta');
  expect(events.at(-1)?.type).toBe('response.completed');
});
