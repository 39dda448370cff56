import type { SpecVersion } from '@openresponses/types';
import { expectTypeOf, test } from 'vitest';
import { checkStream, type StreamCheckerOptions } from '../../src/checker/checker.js';

test('specVersion is the generated union of known versions', () => {
  expectTypeOf<NonNullable<StreamCheckerOptions['specVersion']>>().toEqualTypeOf<SpecVersion>();
  // @ts-expect-error: no such spec version
  checkStream([], { specVersion: '2099-01-01' });
});
