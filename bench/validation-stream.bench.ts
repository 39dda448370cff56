// Validation throughput for a streamed response: JSON.parse alone, Ajv compiled, and our Zod schemas in both modes, side by side.
import { StreamingEventSchema, forward } from '@openresponses/zod';
import { measure, printTable } from './harness.js';
import { streamEvents } from './fixtures/payloads.js';
import { ajvValidators } from './fixtures/spec-validators.js';

export function run(): void {
  const ajv = ajvValidators();
  const events = streamEvents(200);
  const eventJson = events.map((e) => JSON.stringify(e));
  // Checking validity here warms Zod from a second call site, as real programs do (see the zod README).
  if (!events.every((e) => ajv.streamingEvent(e)) || !events.every((e) => StreamingEventSchema.safeParse(e).success))
    throw new Error('benchmark payloads must be valid');
  console.log(`Stream: ${events.length} events, ${eventJson.reduce((n, s) => n + s.length, 0)} bytes`);
  printTable(
    `Stream of ${events.length} events (whole stream per op)`,
    measure([
      { name: 'JSON.parse', run: () => eventJson.map((s) => JSON.parse(s)) },
      { name: 'Ajv compiled', run: () => events.every((e) => ajv.streamingEvent(e)) },
      { name: 'zod spec-exact (safeParse)', run: () => events.every((e) => StreamingEventSchema.safeParse(e).success) },
      {
        name: 'zod forward-compatible (safeParse)',
        run: () => events.every((e) => forward.StreamingEventSchema.safeParse(e).success),
      },
    ]),
    'JSON.parse',
  );
}
