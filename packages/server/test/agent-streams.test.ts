// The streams agents need (the Codex CLI reads items only from `response.output_item.done` and usage from the
// terminal event, and retries the whole request on `response.failed`), for a Codex-shaped request on the
// embedded model and on every registered family in front of a scripted upstream: each item added is done,
// exactly one terminal event ends the stream and it carries usage, on the error paths too.
import type { AnyStreamingEvent } from '@openresponses/events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningServer } from '../src/node/index.js';
import {
  CONFORMANCE_WIRES,
  FAMILY_TYPES,
  type ScriptedAnswer,
  type ScriptedUpstream,
  startScriptedUpstream,
} from '../src/testing/index.js';
import { startTestServer, stream } from './harness.js';

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** A Codex-shaped request (spec-shaped here: the served-stream check reads it as the spec). */
const codexLike = (model: string, text: string) => ({
  model,
  store: false,
  parallel_tool_calls: true,
  prompt_cache_key: 'thread-1',
  client_metadata: { originator: 'codex_exec' },
  tools: [
    {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command',
      parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
    },
  ],
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  ],
});

function expectAgentReadable(events: AnyStreamingEvent[], terminal: string): void {
  const added = events
    .filter((e) => e.type === 'response.output_item.added')
    .map((e) => (e as { item: { id: string } }).item.id);
  const done = events
    .filter((e) => e.type === 'response.output_item.done')
    .map((e) => (e as { item: { id: string } }).item.id);
  expect(done).toEqual(added);
  const ends = events.filter((e) => TERMINAL.has(e.type));
  expect(ends.map((e) => e.type)).toEqual([terminal]);
  expect(events.at(-1)).toBe(ends[0]);
  const usage = (ends[0] as unknown as { response: { usage: unknown } }).response.usage;
  expect(usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
}

describe('the embedded model', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  test.each([
    ['text', 'say hi', 'response.completed'],
    ['a tool call', 'run exec_command please', 'response.completed'],
    ['a failure', '[fail] now', 'response.failed'],
  ])('%s', async (_name, text, terminal) => {
    const { events, violations } = await stream(server, codexLike('openresponses-deterministic', text));
    expect(violations).toEqual([]);
    expectAgentReadable(events, terminal);
  });
});

describe.each(FAMILY_TYPES)('the %s family', (family) => {
  const wire = CONFORMANCE_WIRES[family]!;
  let upstream: ScriptedUpstream;
  let server: RunningServer;
  beforeAll(async () => {
    upstream = await startScriptedUpstream(wire);
    server = await startTestServer({ providers: [wire.provider(upstream.rootUrl, 'upstream-key')] });
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
  });
  const model = () => server.url && 'scripted-model';

  const cases: Array<[string, ScriptedAnswer, string]> = [
    ['text', { kind: 'text', deltas: ['Hello', ' there.'] }, 'response.completed'],
    [
      'a tool call',
      { kind: 'tool-calls', calls: [{ id: 'call_1', name: 'exec_command', arguments: '{"cmd":"ls"}' }] },
      'response.completed',
    ],
    ['an error mid-stream', { kind: 'error-midstream', deltas: ['Half'] }, 'response.failed'],
    ['a dropped connection', { kind: 'cut', deltas: ['Half'] }, 'response.failed'],
  ];
  test.each(cases)('%s', async (_name, answer, terminal) => {
    upstream.script(answer);
    const { events, violations } = await stream(server, codexLike(model(), 'hi'));
    expect(violations).toEqual([]);
    expectAgentReadable(events, terminal);
  });
});
