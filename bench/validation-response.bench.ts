// Validation throughput for one ResponseResource: JSON.parse alone, Ajv (plain and with discriminator dispatch),
// typia (compiled from our types at bench time), our Zod schemas (classic and mini) and the standalone
// validators, side by side.
import { loadavg } from 'node:os';
import * as standalone from '@openresponses/types/validate';
import * as standaloneForward from '@openresponses/types/validate/forward';
import { CreateResponseBodySchema, ResponseResourceSchema, forward, validate } from '@openresponses/zod';
import * as mini from '@openresponses/zod/mini';
import { measure, printHeadToHead, printRatio, printTable } from './harness.js';
import { createBody, responseResource } from './fixtures/payloads.js';
import { ajvValidators } from './fixtures/spec-validators.js';
import { typiaValidators } from './fixtures/typia.js';

export async function run(): Promise<void> {
  const typia = await typiaValidators();
  const ajv = ajvValidators();
  const ajvDispatch = ajvValidators({ discriminator: true });
  const response = responseResource();
  const responseJson = JSON.stringify(response);
  if (
    !ajv.responseResource(response) ||
    !ajvDispatch.responseResource(response) ||
    !ResponseResourceSchema.safeParse(response).success ||
    !standalone.isResponseResource(response) ||
    !typia.isResponseResource(response) ||
    !typia.validateResponseResource(response).success
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
    { name: 'typia createIs', run: () => typia.isResponseResource(response) },
    { name: 'typia createValidate', run: () => typia.validateResponseResource(response) },
    { name: 'standalone isResponseResource', run: () => standalone.isResponseResource(response) },
    { name: 'standalone validateResponseResource', run: () => standalone.validateResponseResource(response) },
    {
      name: 'standalone forward validateResponseResource',
      run: () => standaloneForward.validateResponseResource(response),
    },
  ]);
  printTable('ResponseResource (one payload per op)', results, 'JSON.parse');
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')}`,
  );
  // Issue 26's target: at least as fast as Ajv with discriminator dispatch, in the same run.
  printRatio(results, 'standalone validateResponseResource', 'Ajv with discriminator dispatch');
  // Issue 38's targets: at least as fast as typia (which is not exact: see the bench README), head to head.
  await printHeadToHead(
    { name: 'standalone validateResponseResource', run: () => standalone.validateResponseResource(response) },
    { name: 'typia createValidate', run: () => typia.validateResponseResource(response) },
  );
  await printHeadToHead(
    { name: 'standalone isResponseResource', run: () => standalone.isResponseResource(response) },
    { name: 'typia createIs', run: () => typia.isResponseResource(response) },
  );

  // The server's request check: a create body through zod classic (before) and the standalone validator.
  const body = createBody();
  const bodyJson = JSON.stringify(body);
  if (!validate(CreateResponseBodySchema, body).success || !standalone.validateCreateResponseBody(body).success)
    throw new Error('benchmark payloads must be valid');
  console.log(`\nCreateResponseBody payload: ${bodyJson.length} bytes`);
  const requests = measure([
    { name: 'JSON.parse', run: () => JSON.parse(bodyJson) },
    { name: 'zod spec-exact (validate, no copy)', run: () => validate(CreateResponseBodySchema, body) },
    { name: 'standalone validateCreateResponseBody', run: () => standalone.validateCreateResponseBody(body) },
  ]);
  printTable('CreateResponseBody, the server request check (one payload per op)', requests, 'JSON.parse');
  printRatio(requests, 'standalone validateCreateResponseBody', 'zod spec-exact (validate, no copy)');
}
