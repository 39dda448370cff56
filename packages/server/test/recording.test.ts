// Record mode: a conversation served by a real provider (the embedded model) is written as scenarios;
// a server replaying that file offline sends the same streams.
import type { AnyStreamingEvent } from '@openresponses/events';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { ChatCompletionsProvider } from '../src/models/chat-completions/index.js';
import { DeterministicModel } from '../src/models/deterministic.js';
import { type RecordedScenario, ScenarioRecorder } from '../src/models/recording.js';
import { ScenarioProvider } from '../src/models/scenarios.js';
import { type RunningServer, readScenarioFile, scenarioRecordWriter } from '../src/node/index.js';
import { startHostileUpstream, startReplayUpstream } from '../src/testing/index.js';
import { startCli } from './cli-process.js';
import { startTestServer, stream } from './harness.js';

const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-recording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const weatherTool = {
  type: 'function',
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Three turns: reasoning and an answer, a tool call and its output, recall of an earlier turn. */
async function converse(server: RunningServer): Promise<AnyStreamingEvent[][]> {
  const streams: AnyStreamingEvent[][] = [];
  const turn = async (body: Record<string, unknown>) => {
    const result = await stream(server, { model: 'openresponses-deterministic', ...body });
    expect(result.violations).toEqual([]);
    streams.push(result.events);
    return (result.events.at(-1) as { response: { id: string; output: Array<{ call_id?: string }> } }).response;
  };
  const first = await turn({ input: 'Hello! My name is Ada. [think]' });
  const second = await turn({
    input: 'What is the weather in Paris?',
    tools: [weatherTool],
    previous_response_id: first.id,
  });
  const callId = second.output.find((item) => item.call_id)?.call_id;
  expect(callId).toBeDefined();
  const third = await turn({
    input: [{ type: 'function_call_output', call_id: callId, output: 'sunny, 24C' }],
    tools: [weatherTool],
    previous_response_id: second.id,
  });
  await turn({ input: 'What is my name?', previous_response_id: third.id });
  return streams;
}

/** What a stream says, without the ids and times that differ between any two runs. */
const content = (events: AnyStreamingEvent[]) =>
  events.map((event) =>
    JSON.stringify(event, (key, value) =>
      ['id', 'item_id', 'call_id', 'created_at', 'completed_at', 'previous_response_id', 'encrypted_content'].includes(
        key,
      )
        ? '*'
        : value,
    ),
  );

describe('record mode', () => {
  test('a recorded conversation replays as the same streams', async () => {
    const saved: RecordedScenario[] = [];
    const recorder = new ScenarioRecorder((scenario) => void saved.push(scenario));
    const live = await startTestServer({ providers: [recorder.wrap(new DeterministicModel())] });
    const recorded = await converse(live).finally(() => live.close());
    // One scenario per turn, each handed on once as its turn ends.
    expect(saved).toHaveLength(4);
    const file = { scenarios: saved };
    expect(file.scenarios.map((s) => s.match)).toMatchObject([
      { turn: 1, toolOutputs: false, text: 'Hello! My name is Ada. [think]' },
      { turn: 2, toolOutputs: false },
      { turn: 2, toolOutputs: true },
      { turn: 3, toolOutputs: false, text: 'What is my name?' },
    ]);

    // Offline: no embedded model, only the file (as JSON, the way the CLI reads it).
    const replay = await startTestServer({ providers: [new ScenarioProvider(JSON.parse(JSON.stringify(file)))] });
    const replayed = await converse(replay).finally(() => replay.close());
    expect(replayed.map(content)).toEqual(recorded.map(content));
    const lastText = (events: AnyStreamingEvent[]) =>
      (events.find((e) => e.type === 'response.output_text.done') as { text: string }).text;
    expect(lastText(replayed[3]!)).toContain('Ada');
  });

  test('an error before the first part is recorded with its status and headers', async () => {
    const saved: RecordedScenario[] = [];
    const limited = new ScenarioProvider({
      model: 'upstream',
      scenarios: [{ name: 'limited', error: { status: 429, message: 'later', headers: { 'retry-after': '3' } } }],
    });
    const server = await startTestServer({
      providers: [new ScenarioRecorder((scenario) => void saved.push(scenario)).wrap(limited)],
    });
    try {
      const response = await fetch(`${server.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer test-key-0123456789' },
        body: JSON.stringify({ model: 'upstream', input: 'hi' }),
      });
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('3');
    } finally {
      await server.close();
    }
    expect(saved[0]).toMatchObject({
      error: { status: 429, type: 'too_many_requests', message: 'later', headers: { 'retry-after': '3' } },
    });
  });

  test('in front of a Chat Completions upstream: recorded traffic replays offline as the same streams', async () => {
    const upstream = await startReplayUpstream();
    const saved: RecordedScenario[] = [];
    const recorder = new ScenarioRecorder((scenario) => void saved.push(scenario));
    const gateway = await startTestServer({
      providers: [recorder.wrap(new ChatCompletionsProvider({ baseUrl: upstream.baseUrl }))],
    });
    const ask = (server: RunningServer, input: string) =>
      stream(server, { model: 'vllm-reasoning', input }).then((result) => {
        expect(result.violations).toEqual([]);
        return result.events;
      });
    const live = await ask(gateway, 'Why is the sky blue?').finally(async () => {
      await gateway.close();
      await upstream.close();
    });
    expect(upstream.received).toHaveLength(1);
    expect(live.some((e) => e.type === 'response.reasoning.delta')).toBe(true);

    // The upstream is gone: the file alone answers.
    const replay = await startTestServer({
      providers: [new ScenarioProvider(JSON.parse(JSON.stringify({ scenarios: saved })))],
    });
    const replayed = await ask(replay, 'Why is the sky blue?').finally(() => replay.close());
    expect(content(replayed)).toEqual(content(live));
  });
});

describe('record mode on disk (JSON Lines)', () => {
  const scenario = (n: number): RecordedScenario => ({
    name: `recorded ${n}: turn 1`,
    match: { model: 'm', text: `question ${n}`, turn: 1, toolOutputs: false },
    times: 1,
    parts: [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: `answer ${n}` },
      { type: 'text-end', id: 't' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
    ],
  });

  test('each turn is one line appended as it ends; a crash mid-write leaves every earlier turn readable', async () => {
    const file = path.join(dir, 'crash.jsonl');
    const writer = scenarioRecordWriter(file);
    await Promise.all([writer(scenario(1)), writer(scenario(2))]);
    // Written as it happened: both lines are on disk before the writer is closed.
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(3);
    // A crash in the middle of the third line.
    appendFileSync(file, JSON.stringify(scenario(3)).slice(0, 40));
    const afterCrash = await readScenarioFile(file);
    expect(afterCrash.listModels()).toContain('m');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.slice(0, 2).map((line) => (JSON.parse(line) as RecordedScenario).name)).toEqual([
      'recorded 1: turn 1',
      'recorded 2: turn 1',
    ]);
    // A new run continues the file: the cut line is dropped, the new turn follows the earlier ones.
    const next = scenarioRecordWriter(file);
    await next(scenario(4));
    await Promise.all([writer.close(), next.close()]);
    const names = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as RecordedScenario).name);
    expect(names).toEqual(['recorded 1: turn 1', 'recorded 2: turn 1', 'recorded 4: turn 1']);
    // A bad line that is not the last one is an error naming it.
    appendFileSync(file, 'not json\n{"name":"x","parts":[]}\n');
    await expect(readScenarioFile(file)).rejects.toThrow(/line 4 is not JSON/);
  });

  test('the CLI records an upstream redacted, and a file cut by a crash replays every earlier turn', async () => {
    const key = 'sk-proj-Rec0rd1ngK3yAbCdEfGhIjKlMn';
    const upstream = await startHostileUpstream({
      behaviours: {
        'echo-key': {
          description: 'a short answer whose text carries the key the gateway sent',
          serve({ response, apiKey }) {
            const body = JSON.stringify({
              id: 'c',
              object: 'chat.completion',
              choices: [
                { index: 0, message: { role: 'assistant', content: `your key is ${apiKey}` }, finish_reason: 'stop' },
              ],
              usage: { prompt_tokens: 1, completion_tokens: 4 },
            });
            response.writeHead(200, { 'content-type': 'application/json' }).end(body);
          },
        },
      },
    });
    const file = path.join(dir, 'cli.jsonl');
    try {
      const live = await startCli([
        '--port',
        '0',
        '--api-key',
        'k-record',
        '--record',
        file,
        '--chat-completions-url',
        upstream.baseUrl,
        '--chat-completions-api-key',
        key,
      ]);
      const ask = (model: string, input: string) =>
        fetch(`${live.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k-record' },
          body: JSON.stringify({ model, input, store: false }),
        });
      const answers: string[] = [];
      for (const input of ['My name is Ada.', 'Hello there [think]']) {
        const response = (await (await ask('openresponses-deterministic', input)).json()) as {
          output: Array<{ type: string; content?: Array<{ text: string }> }>;
        };
        answers.push(response.output.find((item) => item.type === 'message')!.content![0]!.text);
      }
      expect((await ask('echo-key', 'what is my key?')).status).toBe(200);
      expect((await ask('key-in-error', 'fail')).status).toBe(400);
      const lines = await vi.waitFor(
        () => {
          const text = readFileSync(file, 'utf8');
          expect(text.split('\n').filter(Boolean)).toHaveLength(4);
          return text;
        },
        { timeout: 10_000 },
      );
      // The crash: the process is killed, not stopped.
      live.child.kill('SIGKILL');
      for (let at = 0; at + 8 <= key.length; at++) expect(lines).not.toContain(key.slice(at, at + 8));
      expect(lines).toContain('your key is [redacted]');

      // The upstream is gone: only the file can answer its model names now.
      await upstream.close();
      const replay = await startCli(['--port', '0', '--api-key', 'k-replay', '--scenarios', file]);
      const again = (model: string, input: string) =>
        fetch(`${replay.url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k-replay' },
          body: JSON.stringify({ model, input }),
        });
      const echoed = (await (await again('echo-key', 'what is my key?')).json()) as {
        output: Array<{ type: string; content?: Array<{ text: string }> }>;
      };
      expect(echoed.output.find((item) => item.type === 'message')!.content![0]!.text).toBe('your key is [redacted]');
      const failed = await again('key-in-error', 'fail');
      expect(failed.status).toBe(400);
      const failedText = await failed.text();
      expect(failedText).toContain('upstream_rejected_request');
      for (let at = 0; at + 8 <= key.length; at++) expect(failedText).not.toContain(key.slice(at, at + 8));
      const recalled = (await (await again('openresponses-deterministic', 'My name is Ada.')).json()) as {
        output: Array<{ type: string; content?: Array<{ text: string }> }>;
      };
      expect(recalled.output.find((item) => item.type === 'message')!.content![0]!.text).toBe(answers[0]);
    } finally {
      await upstream.close();
    }
  }, 60_000);
});
