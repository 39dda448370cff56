import { expectTypeOf, test } from 'vitest';
import type { Forward, ResponseResource, StreamingEvent, Usage } from '../src/index.js';
import type * as V1 from '../src/generated/2026-01-15/index.gen.js';
import {
  forward,
  isResponseResource,
  isStreamingEvent,
  isUsage,
  type ValidationIssue,
  validateResponseResource,
  versions,
} from '../src/generated/validate/index.gen.js';
import * as pinned from '../src/generated/validate/2026-01-15/index.gen.js';

test('is<Name> narrows unknown to the types package type', () => {
  const value: unknown = {};
  if (isResponseResource(value)) expectTypeOf(value).toEqualTypeOf<ResponseResource>();
  if (isUsage(value)) expectTypeOf(value).toEqualTypeOf<Usage>();
  if (isStreamingEvent(value)) expectTypeOf(value).toEqualTypeOf<StreamingEvent>();
  if (forward.isStreamingEvent(value)) expectTypeOf(value).toEqualTypeOf<Forward.StreamingEvent>();
  if (pinned.isResponseResource(value)) expectTypeOf(value).toEqualTypeOf<V1.ResponseResource>();
});

test('validate<Name> returns the input typed, or issues with array paths', () => {
  const result = validateResponseResource({});
  if (result.success) expectTypeOf(result.data).toEqualTypeOf<ResponseResource>();
  else expectTypeOf(result.issues).toEqualTypeOf<ValidationIssue[]>();
  expectTypeOf<ValidationIssue['path']>().toEqualTypeOf<(string | number)[]>();
});

test('versions holds every version in both modes', () => {
  expectTypeOf(versions['2026-01-15'].exact.isResponseResource).toEqualTypeOf(pinned.isResponseResource);
  expectTypeOf(versions['2026-01-15'].forward.validateStreamingEvent).returns.toMatchTypeOf<
    { success: true; data: V1.Forward.StreamingEvent } | { success: false; issues: ValidationIssue[] }
  >();
});
