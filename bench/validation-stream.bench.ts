// Validation throughput for a streamed response: JSON.parse alone, Ajv compiled, and our Zod schemas in both modes, side by side.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { ResponseResourceSchema, StreamingEventSchema, forward, validate } from '@openresponses/zod';
import { LATEST_SPEC_VERSION } from '@openresponses/types';
import { measure, printTable } from './harness.js';
import { responseResource, streamEvents } from './fixtures/payloads.js';

export function run(): void {
  const document = JSON.parse(readFileSync(new URL(`../openapi/documents/${LATEST_SPEC_VERSION}/openapi.json`, import.meta.url), 'utf8'));
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ ...document, $id: 'spec' });
  const ajvResponse = ajv.compile({ $ref: 'spec#/components/schemas/ResponseResource' });
  const ajvEvent = ajv.compile({ $ref: 'spec#/paths/~1responses/post/responses/200/content/text~1event-stream/schema' });

  const response = responseResource();
  const responseJson = JSON.stringify(response);
  const events = streamEvents(200);
  const eventJson = events.map((e) => JSON.stringify(e));
  for (const check of [ajvResponse(response), ResponseResourceSchema.safeParse(response).success, events.every((e) => ajvEvent(e)), events.every((e) => StreamingEventSchema.safeParse(e).success)]) {
    if (!check) throw new Error('benchmark payloads must be valid');
  }

  printTable(
    `Stream of ${events.length} events (whole stream per op)`,
    measure([
      { name: 'JSON.parse', run: () => eventJson.map((s) => JSON.parse(s)) },
      { name: 'Ajv compiled', run: () => events.every((e) => ajvEvent(e)) },
      { name: 'zod spec-exact (safeParse)', run: () => events.every((e) => StreamingEventSchema.safeParse(e).success) },
      { name: 'zod forward-compatible (safeParse)', run: () => events.every((e) => forward.StreamingEventSchema.safeParse(e).success) },
    ]),
    'JSON.parse',
  );
}
