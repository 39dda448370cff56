// Validation throughput for one ResponseResource: JSON.parse alone, Ajv compiled, and our Zod schemas in both modes, side by side.
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

  console.log(`ResponseResource payload: ${responseJson.length} bytes; stream: ${events.length} events, ${eventJson.reduce((n, s) => n + s.length, 0)} bytes`);
  printTable(
    'ResponseResource (one payload per op)',
    measure([
      { name: 'JSON.parse', run: () => JSON.parse(responseJson) },
      { name: 'Ajv compiled (validate parsed object)', run: () => ajvResponse(response) },
      { name: 'zod spec-exact (safeParse)', run: () => ResponseResourceSchema.safeParse(response) },
      { name: 'zod spec-exact (validate, no copy)', run: () => validate(ResponseResourceSchema, response) },
      { name: 'zod forward-compatible (safeParse)', run: () => forward.ResponseResourceSchema.safeParse(response) },
    ]),
    'JSON.parse',
  );
}
