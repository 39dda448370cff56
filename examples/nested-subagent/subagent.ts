// Nested agent streams (seed 002's design, in Open Responses terms): a hosted `acme:subagent` tool runs a
// sub-agent whose own response streams inside the parent stream, each inner event wrapped in an
// `acme:subagent_event` keyed by the parent call_id. The parent sees only the sub-agent's final message
// (in the `acme:subagent_call` item); a client-side fold rebuilds the whole nested tree for display.
import {
  checkStream,
  createAccumulator,
  createStreamWriter,
  startingResponse,
  type AnyStreamingEvent,
  type Violation,
} from '@openresponses/events';
import { createRegistry, defineEvent, defineItem, defineTool } from '@openresponses/extensions';
import { lastUserText, type ModelPart, type ModelProvider, type ModelRequest } from '@openresponses/server';
import type { ResponseResource } from '@openresponses/types';
import { z } from 'zod';

export const subagentCall = defineItem('acme:subagent_call', {
  call_id: z.string(),
  agent: z.string(),
  prompt: z.string(),
  result: z.string(),
});
export const subagentTool = defineTool('acme:subagent', { param: { agent: z.string() }, item: subagentCall });
export const subagentEvent = defineEvent('acme:subagent_event', {
  call_id: z.string(),
  event: z.looseObject({ type: z.string() }),
});
export const registry = createRegistry({ tools: [subagentTool], events: [subagentEvent] });

/** One sub-agent run, rebuilt from the parent stream. */
export interface SubagentRun {
  callId: string;
  /** The sub-agent's own response, accumulated from its events. */
  response: ResponseResource | undefined;
  /** The sub-agent's stream checked against the spec's rules on its own. */
  violations: Violation[];
  events: AnyStreamingEvent[];
}

/** The client-side fold: groups `acme:subagent_event`s by parent call_id and accumulates each inner stream. */
export function foldSubagents(events: Iterable<AnyStreamingEvent>): Map<string, SubagentRun> {
  const runs = new Map<string, { accumulator: ReturnType<typeof createAccumulator>; events: AnyStreamingEvent[] }>();
  for (const event of events) {
    if (event.type !== 'acme:subagent_event') continue;
    const { call_id: callId, event: inner } = event as unknown as { call_id: string; event: AnyStreamingEvent };
    let run = runs.get(callId);
    if (!run) runs.set(callId, (run = { accumulator: createAccumulator(), events: [] }));
    run.events.push(inner);
    run.accumulator.push(inner);
  }
  return new Map(
    [...runs].map(([callId, run]) => [
      callId,
      { callId, response: run.accumulator.response, events: run.events, violations: checkStream(run.events, {}) },
    ]),
  );
}

/** The parent model: hands the question to a weather sub-agent, streams its run nested, then answers with its result. */
export class OrchestratorModel implements ModelProvider {
  readonly name = 'acme-orchestrator';
  readonly contextWindow = 100_000;
  supports(model: string) {
    return model === 'acme-orchestrator';
  }
  async *generate(request: ModelRequest): AsyncIterable<ModelPart> {
    const tool = request.hostedTools.find((t) => t.type === 'acme:subagent') as { agent: string } | undefined;
    const prompt = lastUserText(request.items);
    const usage = { inputTokens: prompt.length, outputTokens: 0 };
    if (!tool) {
      yield* say('No sub-agent is available.');
      yield { type: 'finish', reason: 'stop', usage };
      return;
    }
    const callId = `call_${crypto.randomUUID().slice(0, 8)}`;
    const inner: AnyStreamingEvent[] = [];
    const result = runWeatherAgent(prompt, (event) => inner.push(event));
    for (const event of inner)
      yield { type: 'vendor-event', event: { type: 'acme:subagent_event', call_id: callId, event } };
    yield { type: 'item', item: { type: 'acme:subagent_call', call_id: callId, agent: tool.agent, prompt, result } };
    yield* say(`The ${tool.agent} says: ${result}`);
    yield { type: 'finish', reason: 'stop', usage };
  }
}

/** A whole assistant message as stream parts. */
function* say(text: string): Iterable<ModelPart> {
  yield { type: 'text-start', id: 'answer' };
  yield { type: 'text-delta', id: 'answer', delta: text };
  yield { type: 'text-end', id: 'answer' };
}

/** The sub-agent: reasons, calls get_weather, reads the result, answers; its events go to `emit`. */
function runWeatherAgent(prompt: string, emit: (event: AnyStreamingEvent) => void): string {
  const city = /\bin ([A-Z][a-z]+)/.exec(prompt)?.[1] ?? 'Paris';
  const writer = createStreamWriter({
    response: startingResponse({ model: 'weather-agent', store: false }),
    onEvent: emit,
  });
  writer.start();
  const reasoning = writer.addReasoning();
  const summary = reasoning.addSummaryPart();
  summary.append(`Thinking about the weather in ${city}. `);
  summary.append('Deciding to call get_weather.');
  summary.done();
  reasoning.done();
  const call = writer.addFunctionCall({ name: 'get_weather', call_id: 'call_inner_1' });
  call.appendArguments(`{"location":"${city}`);
  call.appendArguments('"}');
  call.done();
  const answer = `The weather in ${city} is sunny, 15°C.`;
  const message = writer.addMessage();
  const text = message.addOutputText();
  for (const word of answer.split(/(?<= )/)) text.append(word);
  text.done();
  message.done();
  writer.complete();
  return answer;
}
