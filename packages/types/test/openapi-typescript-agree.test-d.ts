// Our named types and openapi-typescript's `components['schemas']` describe the same payloads: each is
// assignable to the other, for every component schema of every spec version. (Identity is too strict:
// openapi-typescript spells some constructs differently, e.g. intersections for allOf.)
import { expectTypeOf, test } from 'vitest';
import type { SpecVersion, TypesByVersion } from '../src/index.js';
import type * as V2 from '../src/generated/2026-04-24/index.gen.js';

type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Fields openapi-typescript cannot express. `x-openresponses-disallowed` fields are written as an
 * unsatisfiable string schema, which it renders as `string` (intersected with the body's own type);
 * ours are `never`. Everything else in those schemas must still agree.
 */
type KnownDeviations = { WebSocketResponseCreateEvent: 'stream' | 'stream_options' | 'background' };
type Comparable<T, K> = K extends keyof KnownDeviations ? Omit<T, KnownDeviations[K]> : T;

/** Component names on which the two disagree (never when all agree). */
type Disagreements<Ours, Theirs> = {
  [K in keyof Theirs]: K extends keyof Ours
    ? MutuallyAssignable<Comparable<Ours[K], K>, Comparable<Theirs[K], K>> extends true
      ? never
      : K
    : `missing: ${K & string}`;
}[keyof Theirs];

test('every spec version: named types agree with openapi-typescript', () => {
  type ByVersion = {
    [V in SpecVersion]: Disagreements<TypesByVersion[V]['schemas'], TypesByVersion[V]['components']>;
  };
  expectTypeOf<ByVersion>().toEqualTypeOf<{ [V in SpecVersion]: never }>();
});
test('the disallowed fields really are absent from our type and present in theirs', () => {
  expectTypeOf<V2.WebSocketResponseCreateEvent['stream']>().toEqualTypeOf<undefined>();
  expectTypeOf<
    V2.components['schemas']['WebSocketResponseCreateEvent']['stream_options']
  >().not.toEqualTypeOf<undefined>();
});
test('the check can fail: a wrong type is reported by name', () => {
  type Wrong = Omit<V2.SchemaTypes, 'Usage'> & { Usage: { input_tokens: string } };
  expectTypeOf<Disagreements<Wrong, V2.components['schemas']>>().toEqualTypeOf<'Usage'>();
});
