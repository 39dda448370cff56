// Record mode: a conversation served by a real provider (the embedded model) is written as scenarios;
// a server replaying that file offline sends the same streams.
import type { AnyStreamingEvent } from '@openresponses/events';
import { describe, expect, test } from 'vitest';
import { ChatCompletionsProvider } from '../src/models/chat-completions/index.js';
import { DeterministicModel } from '../src/models/deterministic.js';
import { ScenarioRecorder } from '../src/models/recording.js';
import { ScenarioProvider, type ScenarioFile } from '../src/models/scenarios.js';
import type { RunningServer } from '../src/node/index.js';
import { startReplayUpstream } from '../src/testing/index.js';
import { startTestServer, stream } from './harness.js';

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
    const saved: ScenarioFile[] = [];
    const recorder = new ScenarioRecorder((file) => void saved.push(file));
    const live = await startTestServer({ providers: [recorder.wrap(new DeterministicModel())] });
    const recorded = await converse(live).finally(() => live.close());
    expect(saved).toHaveLength(4);
    const file = saved.at(-1)!;
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
    const saved: ScenarioFile[] = [];
    const limited = new ScenarioProvider({
      model: 'upstream',
      scenarios: [{ name: 'limited', error: { status: 429, message: 'later', headers: { 'retry-after': '3' } } }],
    });
    const server = await startTestServer({
      providers: [new ScenarioRecorder((f) => void saved.push(f)).wrap(limited)],
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
    expect(saved.at(-1)?.scenarios[0]).toMatchObject({
      error: { status: 429, type: 'too_many_requests', message: 'later', headers: { 'retry-after': '3' } },
    });
  });

  test('in front of a Chat Completions upstream: recorded traffic replays offline as the same streams', async () => {
    const upstream = await startReplayUpstream();
    const saved: ScenarioFile[] = [];
    const recorder = new ScenarioRecorder((file) => void saved.push(file));
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
      providers: [new ScenarioProvider(JSON.parse(JSON.stringify(saved.at(-1))))],
    });
    const replayed = await ask(replay, 'Why is the sky blue?').finally(() => replay.close());
    expect(content(replayed)).toEqual(content(live));
  });
});
