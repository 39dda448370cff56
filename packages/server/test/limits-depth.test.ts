// The nesting bound on a request's JSON (limits.ts `depthExceeds`, applied by exchange.ts `parseJson` to the
// parsed value before anything recursive reads it): the walk agrees with the scan of the text, and a body
// nested past the limit is a 400 `nesting_too_deep`, with the default limit and with a small one.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { depthExceeds, jsonDepthExceeds } from '../src/limits.js';
import type { RunningServer } from '../src/node/index.js';
import { post, startTestServer } from './harness.js';

describe('depthExceeds', () => {
  test('agrees with the scan of the value as JSON text, for every limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10 }), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        expect(depthExceeds(value, limit)).toBe(jsonDepthExceeds(JSON.stringify(value), limit));
      }),
      { numRuns: 3000, seed: 5 },
    );
  });
  test('counts a container per level, primitives none, whatever the width', () => {
    expect(depthExceeds('x', 0)).toBe(false);
    expect(depthExceeds([], 0)).toBe(true);
    expect(depthExceeds([[1, 'a', null], { a: {} }], 3)).toBe(false);
    expect(depthExceeds([[1, 'a', null], { a: {} }], 2)).toBe(true);
    const deep = JSON.parse(`${'{"a":['.repeat(64)}${']}'.repeat(64)}`);
    expect(depthExceeds(deep, 128)).toBe(false);
    expect(depthExceeds(deep, 127)).toBe(true);
  });
});

describe('a request body nested past maxJsonDepth', () => {
  let server: RunningServer;
  let small: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
    small = await startTestServer({ limits: { maxJsonDepth: 4 } });
  });
  afterAll(async () => {
    await server.close();
    await small.close();
  });

  const nested = (depth: number) =>
    `{"model":"openresponses-deterministic","input":"hi","metadata":{"a":"${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}"}}`;
  const expectTooDeep = async (response: Response, limit: number) => {
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request', code: 'nesting_too_deep' });
    expect(body.error.message).toContain(`more than ${limit} levels`);
  };

  test('with the default limit (128): 512 Ki levels are refused, brackets in a string are not nesting', async () => {
    const depth = 512 * 1024;
    const body = `{"model":"openresponses-deterministic","input":"hi","metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    await expectTooDeep(await post(server, '/v1/responses', body), 128);
    const inString = await post(server, '/v1/responses', nested(200));
    expect(inString.status).toBe(200);
  });

  test('with a small limit: one level past it is refused, the limit itself is not', async () => {
    // The body (1), tools (2), the tool (3), its parameters (4): a string is never a level.
    const tool = (parameters: string) =>
      `{"model":"openresponses-deterministic","input":"hi [x]","tools":[{"type":"function","name":"f","parameters":${parameters}}]}`;
    expect((await post(small, '/v1/responses', tool('{"type":"object","description":"[[{"}'))).status).toBe(200);
    const past = tool('{"type":"object","properties":{}}');
    await expectTooDeep(await post(small, '/v1/responses', past), 4);
  });
});
