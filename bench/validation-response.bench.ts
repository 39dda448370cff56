// Validation throughput for one ResponseResource: JSON.parse alone, Ajv compiled, and our Zod schemas in both modes, side by side.
import { ResponseResourceSchema, forward, validate } from '@openresponses/zod';
import { measure, printTable } from './harness.js';
import { responseResource } from './fixtures/payloads.js';
import { ajvValidators } from './fixtures/spec-validators.js';

export function run(): void {
  const ajv = ajvValidators();
  const response = responseResource();
  const responseJson = JSON.stringify(response);
  if (!ajv.responseResource(response) || !ResponseResourceSchema.safeParse(response).success)
    throw new Error('benchmark payloads must be valid');
  console.log(`ResponseResource payload: ${responseJson.length} bytes`);
  printTable(
    'ResponseResource (one payload per op)',
    measure([
      { name: 'JSON.parse', run: () => JSON.parse(responseJson) },
      { name: 'Ajv compiled (validate parsed object)', run: () => ajv.responseResource(response) },
      { name: 'zod spec-exact (safeParse)', run: () => ResponseResourceSchema.safeParse(response) },
      { name: 'zod spec-exact (validate, no copy)', run: () => validate(ResponseResourceSchema, response) },
      { name: 'zod forward-compatible (safeParse)', run: () => forward.ResponseResourceSchema.safeParse(response) },
    ]),
    'JSON.parse',
  );
}
