// The round trip `npm start` and `npm run demo` show: create, stream, a function-tool loop and a
// multi-turn conversation that recalls an earlier turn, all through @openresponses/client. With
// `store: false` every request says so and the recall resends the first turn instead of naming it by
// `previous_response_id`: nothing is written into the server's store (`npm start` does that unless the
// server's store is its own memory).
import { createClient, defineTool, outputToInput, runAgent } from '@openresponses/client';
import { z } from 'zod';

export async function runDemo(options: {
  baseURL: string;
  apiKey?: string;
  /** false: store nothing on the server (default true). */
  store?: boolean;
  log?: (line: string) => void;
}): Promise<string[]> {
  const transcript: string[] = [];
  const log = (line: string) => {
    transcript.push(line);
    options.log?.(line);
  };
  const client = createClient({ baseURL: options.baseURL, apiKey: options.apiKey });
  const model = 'openresponses-deterministic';
  const stored = options.store !== false;
  const store = stored ? {} : { store: false };

  log('1. create');
  const created = await client.responses.create({ model, input: 'Hello! My name is Ada.', ...store });
  log(
    `   user: Hello! My name is Ada.\n   model: ${textOf(created)}   [${created.id}, ${created.usage?.total_tokens} tokens]`,
  );

  log('2. stream (with reasoning)');
  const stream = await client.responses.stream({ model, input: 'Stream a short answer, please. [think]', ...store });
  let streamed = '';
  let events = 0;
  for await (const event of stream) {
    events++;
    if (event.type === 'response.output_text.delta') streamed += event.delta;
  }
  const final = await stream.finalResponse();
  log(`   model: ${streamed}   [${events} events; output: ${final.output.map((item) => item.type).join(', ')}]`);

  log('3. tool loop (parallel calls, one follow-up)');
  const calls: string[] = [];
  const result = await runAgent({
    client,
    model,
    input: 'What are the weather and the time in Lisbon?',
    ...store,
    tools: [
      defineTool({
        name: 'get_weather',
        description: 'Weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => (calls.push(`get_weather(${city})`), { city, sky: 'sunny', temperature_c: 22 }),
      }),
      defineTool({
        name: 'get_time',
        description: 'Local time in a city',
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => (calls.push(`get_time(${city})`), '14:05'),
      }),
    ],
  });
  log(`   tools ran: ${calls.join(', ')}\n   model: ${textOf(result.response)}   [${result.steps.length} steps]`);

  log(stored ? '4. multi-turn (previous_response_id)' : '4. multi-turn (store: false: the first turn resent as input)');
  const next = await client.responses.create(
    stored
      ? { model, previous_response_id: created.id, input: 'What is my name?' }
      : {
          model,
          store: false,
          input: [
            { type: 'message', role: 'user', content: 'Hello! My name is Ada.' },
            ...outputToInput(created),
            { type: 'message', role: 'user', content: 'What is my name?' },
          ],
        },
  );
  log(`   user: What is my name?\n   model: ${textOf(next)}`);
  return transcript;
}

function textOf(response: {
  output: Array<{ type: string; content?: Array<{ type: string; text?: string }> }>;
}): string {
  return response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => part.text ?? '')
    .join('');
}
