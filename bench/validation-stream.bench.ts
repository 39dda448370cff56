// Validation throughput for a streamed response: JSON.parse alone, Ajv (plain and with discriminator dispatch),
// typia (compiled from our types at bench time), our Zod schemas (classic and mini) and the standalone
// validators, side by side.
import { loadavg } from 'node:os';
import * as standalone from '@openresponses/types/validate';
import * as standaloneForward from '@openresponses/types/validate/forward';
import { StreamingEventSchema, forward } from '@openresponses/zod';
import * as mini from '@openresponses/zod/mini';
import { measure, printHeadToHead, printRatio, printTable } from './harness.js';
import { streamEvents } from './fixtures/payloads.js';
import { ajvValidators } from './fixtures/spec-validators.js';
import { typiaValidators } from './fixtures/typia.js';

export async function run(): Promise<void> {
  const typia = await typiaValidators();
  const ajv = ajvValidators();
  const ajvDispatch = ajvValidators({ discriminator: true });
  const events = streamEvents(200);
  const eventJson = events.map((e) => JSON.stringify(e));
  // Checking validity here warms Zod from a second call site, as real programs do (see the zod README).
  if (
    !events.every((e) => ajv.streamingEvent(e) && ajvDispatch.streamingEvent(e)) ||
    !events.every((e) => StreamingEventSchema.safeParse(e).success && standalone.isStreamingEvent(e)) ||
    !events.every((e) => typia.isStreamingEvent(e) && typia.validateStreamingEvent(e).success)
  )
    throw new Error('benchmark payloads must be valid');
  console.log(`Stream: ${events.length} events, ${eventJson.reduce((n, s) => n + s.length, 0)} bytes`);
  const results = measure([
    { name: 'JSON.parse', run: () => eventJson.map((s) => JSON.parse(s)) },
    { name: 'Ajv compiled', run: () => events.every((e) => ajv.streamingEvent(e)) },
    { name: 'Ajv with discriminator dispatch', run: () => events.every((e) => ajvDispatch.streamingEvent(e)) },
    { name: 'zod spec-exact (safeParse)', run: () => events.every((e) => StreamingEventSchema.safeParse(e).success) },
    {
      name: 'zod forward-compatible (safeParse)',
      run: () => events.every((e) => forward.StreamingEventSchema.safeParse(e).success),
    },
    {
      name: 'zod mini spec-exact (validate)',
      run: () => events.every((e) => mini.validate(mini.StreamingEventSchema, e).success),
    },
    { name: 'typia createIs', run: () => events.every((e) => typia.isStreamingEvent(e)) },
    { name: 'typia createValidate', run: () => events.every((e) => typia.validateStreamingEvent(e).success) },
    { name: 'standalone isStreamingEvent', run: () => events.every((e) => standalone.isStreamingEvent(e)) },
    {
      name: 'standalone validateStreamingEvent',
      run: () => events.every((e) => standalone.validateStreamingEvent(e).success),
    },
    {
      name: 'standalone forward validateStreamingEvent',
      run: () => events.every((e) => standaloneForward.validateStreamingEvent(e).success),
    },
  ]);
  printTable(`Stream of ${events.length} events (whole stream per op)`, results, 'JSON.parse');
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}`,
  );
  printRatio(results, 'standalone validateStreamingEvent', 'Ajv with discriminator dispatch');
  // Issue 38's target: at least 1.8x typia on a stream, head to head.
  await printHeadToHead(
    {
      name: 'standalone validateStreamingEvent',
      run: () => events.every((e) => standalone.validateStreamingEvent(e).success),
    },
    { name: 'typia createValidate', run: () => events.every((e) => typia.validateStreamingEvent(e).success) },
  );
  await printHeadToHead(
    { name: 'standalone isStreamingEvent', run: () => events.every((e) => standalone.isStreamingEvent(e)) },
    { name: 'typia createIs', run: () => events.every((e) => typia.isStreamingEvent(e)) },
  );
}
