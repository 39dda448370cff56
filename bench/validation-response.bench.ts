// Validation throughput for one ResponseResource: JSON.parse alone, Ajv (plain and with discriminator dispatch),
// our Zod schemas (classic and mini) and the standalone validators, side by side.
import * as standalone from '@openresponses/types/validate';
import * as standaloneForward from '@openresponses/types/validate/forward';
import { ResponseResourceSchema, forward, validate } from '@openresponses/zod';
import * as mini from '@openresponses/zod/mini';
import { measure, printRatio, printTable } from './harness.js';
import { responseResource } from './fixtures/payloads.js';
import { ajvValidators } from './fixtures/spec-validators.js';

export function run(): void {
  const ajv = ajvValidators();
  const ajvDispatch = ajvValidators({ discriminator: true });
  const response = responseResource();
  const responseJson = JSON.stringify(response);
  if (
    !ajv.responseResource(response) ||
    !ajvDispatch.responseResource(response) ||
    !ResponseResourceSchema.safeParse(response).success ||
    !standalone.isResponseResource(response)
  )
    throw new Error('benchmark payloads must be valid');
  console.log(`ResponseResource payload: ${responseJson.length} bytes`);
  const results = measure([
    { name: 'JSON.parse', run: () => JSON.parse(responseJson) },
    { name: 'Ajv compiled (validate parsed object)', run: () => ajv.responseResource(response) },
    { name: 'Ajv with discriminator dispatch', run: () => ajvDispatch.responseResource(response) },
    { name: 'zod spec-exact (safeParse)', run: () => ResponseResourceSchema.safeParse(response) },
    { name: 'zod spec-exact (validate, no copy)', run: () => validate(ResponseResourceSchema, response) },
    { name: 'zod forward-compatible (safeParse)', run: () => forward.ResponseResourceSchema.safeParse(response) },
    { name: 'zod mini spec-exact (validate)', run: () => mini.validate(mini.ResponseResourceSchema, response) },
    { name: 'standalone isResponseResource', run: () => standalone.isResponseResource(response) },
    { name: 'standalone validateResponseResource', run: () => standalone.validateResponseResource(response) },
    {
      name: 'standalone forward validateResponseResource',
      run: () => standaloneForward.validateResponseResource(response),
    },
  ]);
  printTable('ResponseResource (one payload per op)', results, 'JSON.parse');
  // Issue 26's target: at least as fast as Ajv with discriminator dispatch, in the same run.
  printRatio(results, 'standalone validateResponseResource', 'Ajv with discriminator dispatch');
}
