// Spec-shaped errors: status per type, param, authentication, unknown previous responses, failures inside a stream.
import { Skip } from '../types.js';
import { expect, expectError, type ComplianceTest } from './context.js';

export const ERRORS_TESTS: ComplianceTest[] = [
  {
    id: 'error-400-param',
    description: 'An invalid field is a 400 spec error naming its param',
    transport: 'http',
    async run(t) {
      expectError(
        await t.request('POST', '/responses', { model: t.config.model, input: 'x', temperature: 'warm' }),
        [400],
        'error-400',
        'temperature',
      );
    },
  },
  {
    id: 'error-401',
    description: 'A wrong API key is a 401 spec error',
    transport: 'http',
    async run(t) {
      if (!t.config.apiKey) throw new Skip('no API key configured');
      expectError(
        await t.request(
          'POST',
          '/responses',
          { model: t.config.model, input: 'x' },
          { authorization: 'Bearer definitely-wrong' },
        ),
        [401],
        'error-401',
      );
    },
  },
  {
    id: 'error-404-previous-response',
    description: 'An unknown previous_response_id is a spec error with code previous_response_not_found',
    transport: 'http',
    async run(t) {
      const error = expectError(
        await t.request('POST', '/responses', {
          model: t.config.model,
          input: 'x',
          previous_response_id: 'resp_does_not_exist',
        }),
        [400, 404],
        'error-404',
      );
      expect(error.code === 'previous_response_not_found', 'error-404', `code is ${error.code}`);
    },
  },
  {
    id: 'stream-error-then-failed',
    description: 'A failure mid-stream is an error event followed by response.failed and [DONE]',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { events } = await t.stream({ input: `Please fail. ${t.config.failurePrompt ?? '[fail]'}` });
      expect(
        events.some((e) => e.type === 'error'),
        'error-then-failed',
        'no error event: the failure was swallowed',
      );
      expect(
        events.at(-1)?.type === 'response.failed',
        'error-then-failed',
        `the stream ended with ${events.at(-1)?.type}`,
      );
    },
  },
];
