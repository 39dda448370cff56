// Our client inside the runtime under test, against a reference server at `baseURL`: JSON, streaming, a
// function-tool round trip through runAgent, previous_response_id continuation and a typed error.
// It only observes; the Node test asserts on what it reports.
import { createClient, defineTool, OpenResponsesError, runAgent } from '@openresponses/client';
import { z } from 'zod';

const model = 'openresponses-deterministic';
const text = (response) =>
  response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content)
    .map((part) => part.text ?? '')
    .join('');

export async function runClient(baseURL, apiKey) {
  const client = createClient({ baseURL, apiKey, maxRetries: 0, validate: 'exact' });

  const created = await client.responses.create({ model, input: 'Hello from the guest' });

  const stream = await client.responses.stream({ model, input: 'Stream from the guest [think]' });
  const types = [];
  for await (const event of stream) types.push(event.type);
  const streamed = await stream.finalResponse();

  const agent = await runAgent({
    client,
    model,
    input: 'What is the weather in Lisbon?',
    tools: [
      defineTool({
        name: 'get_weather',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, temperature_c: 22 }),
      }),
    ],
  });

  const first = await client.responses.create({ model, input: 'Hi, my name is Ada.' });
  const second = await client.responses.create({ model, previous_response_id: first.id, input: 'What is my name?' });

  const error = await client.responses
    .create({ model, input: 'x', previous_response_id: 'resp_missing' })
    .catch((e) => e);

  return {
    created: { status: created.status, text: text(created) },
    streamed: {
      first: types[0],
      last: types.at(-1),
      reasoning: types.includes('response.reasoning_summary_text.delta'),
      text: text(streamed),
    },
    agent: {
      stopReason: agent.stopReason,
      toolCalls: agent.toolCalls,
      steps: agent.steps.length,
      text: text(agent.response),
    },
    continued: { previous: second.previous_response_id === first.id, text: text(second) },
    error:
      error instanceof OpenResponsesError
        ? { status: error.status, type: error.type, code: error.code, param: error.param }
        : String(error),
  };
}

/** A WebSocket session of our client on the runtime's own `WebSocket` (which takes the key as a header in Bun and Deno). */
export async function runSocketClient(baseURL, apiKey) {
  const client = createClient({ baseURL, apiKey, maxRetries: 0, validate: 'exact' });
  const session = await client.responses.connect({ WebSocket: globalThis.WebSocket });
  try {
    const first = await session.send('Hi, my name is Ada.', { model, store: false });
    const second = await session.send('What is my name?', { model, store: false });
    return { continued: second.previous_response_id === first.id, text: text(second) };
  } finally {
    session.close();
  }
}
