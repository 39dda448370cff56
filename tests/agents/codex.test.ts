// The Codex CLI (pinned) against the reference server's CLI on 127.0.0.1: multi-turn sessions whose tool
// calls really run (a scenario file; and each registered gateway family in front of a scripted upstream in its wire format), a
// namespaced tool, and `codex exec resume`. Codex sends the OpenAI superset (namespace, custom and hosted
// tools, client_metadata, store false, full-history replays): the default ingress profile reads it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFORMANCE_WIRES, FAMILY_TYPES } from '@openresponses/server/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { codexExec, codexHome } from './codex.js';
import { type CliServer, type Gateway, startCliServer, startGateway } from './server.js';

const scenarios = new URL('./codex-scenarios.json', import.meta.url).pathname;
type Item = Record<string, unknown> & { type: string };
const inputOf = (body: Record<string, unknown>) => body.input as Item[];

describe('Codex on scenario files (the embedded models)', () => {
  let server: CliServer;
  beforeAll(async () => {
    server = await startCliServer(['--scenarios', scenarios]);
  });
  afterAll(() => server?.close());

  test('a multi-turn exec whose shell command really runs, then resume of the same thread', async () => {
    const home = codexHome(server.baseUrl, 'openresponses-scenario');
    const first = await codexExec(home, ['please write the proof file']);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(path.join(home.workdir, 'proof.txt'), 'utf8')).toBe('codex-ran-this\n');
    expect(first.stdout.trim().split('\n').at(-1)).toBe('Done: the tool ran.');
    // Two requests: the call, then the whole history again with the command's output (no previous_response_id).
    const [call, followUp] = server.received;
    expect(call).toMatchObject({ stream: true, store: false, client_metadata: expect.any(Object) });
    expect(call!.tools).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'namespace' })]));
    expect(followUp!.previous_response_id).toBeUndefined();
    const output = inputOf(followUp!).find((item) => item.type === 'function_call_output');
    expect(String(output?.output)).toContain('Process exited with code 0');

    const resumed = await codexExec(home, ['resume', '--last', 'what did you write?']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim().split('\n').at(-1)).toBe('Earlier I wrote proof.txt with a shell command.');
    // The resumed turn replays the first exec's history: the command and its output are in it.
    const replay = inputOf(server.received.at(-1)!);
    expect(replay.some((item) => item.type === 'function_call' && item.name === 'exec_command')).toBe(true);
    expect(replay.some((item) => item.type === 'function_call_output')).toBe(true);
  });

  test('a namespaced tool is called by its namespace and name, and Codex runs it', async () => {
    const home = codexHome(server.baseUrl, 'openresponses-scenario');
    server.received.length = 0;
    const run = await codexExec(home, ['wait for the agents']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Done: the tool ran.');
    // Codex got `wait_agent` in namespace `multi_agent_v1` (not the flattened name), ran it, and sent back
    // the call with its namespace and the tool's output.
    const replay = inputOf(server.received.at(-1)!);
    const call = replay.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'wait_agent', namespace: 'multi_agent_v1' });
    expect(replay.find((item) => item.type === 'function_call_output')).toMatchObject({ call_id: call!.call_id });
  });
});

test('every registered family has a wire to script (so each is covered below)', () => {
  expect(FAMILY_TYPES.length).toBeGreaterThan(1);
  expect(FAMILY_TYPES.filter((type) => !CONFORMANCE_WIRES[type])).toEqual([]);
});

describe.each(FAMILY_TYPES)('Codex through the gateway: the %s family in front of a scripted upstream', (family) => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway(family);
  });
  afterAll(() => gateway?.close());

  test('a multi-turn exec: the upstream calls exec_command, Codex runs it, the upstream reads the output', async () => {
    const { server, upstream, wire } = gateway;
    upstream.script(
      {
        kind: 'tool-calls',
        calls: [{ id: 'call_exec_1', name: 'exec_command', arguments: '{"cmd":"echo gateway-tool-ran > proof.txt"}' }],
      },
      { kind: 'text', deltas: ['Done ', 'through the gateway.'] },
    );
    const home = codexHome(server.baseUrl, 'via-gateway');
    const run = await codexExec(home, ['please write the proof file']);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(path.join(home.workdir, 'proof.txt'), 'utf8')).toBe('gateway-tool-ran\n');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('Done through the gateway.');
    // The upstream saw only function tools (namespaces flattened, web_search left out), then the tool's output.
    expect(upstream.received).toHaveLength(2);
    const tools = JSON.stringify(upstream.received[0]!.body.tools);
    expect(tools).toContain('multi_agent_v1__wait_agent');
    expect(tools).not.toContain('web_search');
    const [result] = wire.toolResults(upstream.received[1]!.body);
    expect(result).toMatchObject({
      callId: 'call_exec_1',
      output: expect.stringContaining('Process exited with code 0'),
    });
  });
});
