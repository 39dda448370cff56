// The round trip `npm start` and `npm run demo` show: create, stream, a function-tool loop and a
// multi-turn conversation that recalls an earlier turn, all through @openresponses/client.
import { createClient, defineTool, runAgent } from '@openresponses/client';
import { z } from 'zod';

export async function runDemo(options: {
  baseURL: string;
  apiKey?: string;
  log?: (line: string) => void;
}): Promise<string[]> {
  const transcript: string[] = [];
  const log = (line: string) => {
    transcript.push(line);
    options.log?.(line);
  };
  const client = createClient({ baseURL: options.baseURL, apiKey: options.apiKey });
  const model = 'openresponses-deterministic';

  log('1. create');
  const created = await client.responses.create({ model, input: 'Hello! My name is Ada.' });
  log(
    `   user: Hello! My name is Ada.\n   model: ${textOf(created)}   [${created.id}, ${created.usage?.total_tokens} tokens]`,
  );

  log('2. stream (with reasoning)');
  const stream = await client.responses.stream({ model, input: 'Stream a short answer, please. [think]' });
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

  log('4. multi-turn (previous_response_id)');
  const next = await client.responses.create({ model, previous_response_id: created.id, input: 'What is my name?' });
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
