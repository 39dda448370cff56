// For every generated schema, z.infer equals the @openresponses/types type of the same name, in both
// directions (type identity), for every spec version and both validation modes.
import { expectTypeOf, test } from 'vitest';
import type { z } from 'zod';
import type * as TypesV1 from '@openresponses/types/2026-01-15';
import type * as TypesV2 from '@openresponses/types/2026-04-24';
import type * as ExactV1 from './generated/2026-01-15/exact.gen.js';
import type * as ForwardV1 from './generated/2026-01-15/forward.gen.js';
import type * as ExactV2 from './generated/2026-04-24/exact.gen.js';
import type * as ForwardV2 from './generated/2026-04-24/forward.gen.js';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/** Names whose inferred type differs from the named type (never when all agree). */
type Disagreements<Schemas, Types> = {
  [K in keyof Types]: `${K & string}Schema` extends keyof Schemas
    ? Equal<z.output<Schemas[`${K & string}Schema`]>, Types[K]> extends true
      ? never
      : K
    : `missing schema for ${K & string}`;
}[keyof Types];

test('2026-01-15 spec-exact schemas infer exactly the named types', () => {
  expectTypeOf<Disagreements<typeof ExactV1, TypesV1.SchemaTypes>>().toEqualTypeOf<never>();
});
test('2026-01-15 forward-compatible schemas infer exactly the Forward types', () => {
  expectTypeOf<Disagreements<typeof ForwardV1, TypesV1.Forward.SchemaTypes>>().toEqualTypeOf<never>();
});
test('2026-04-24 spec-exact schemas infer exactly the named types', () => {
  expectTypeOf<Disagreements<typeof ExactV2, TypesV2.SchemaTypes>>().toEqualTypeOf<never>();
});
test('2026-04-24 forward-compatible schemas infer exactly the Forward types', () => {
  expectTypeOf<Disagreements<typeof ForwardV2, TypesV2.Forward.SchemaTypes>>().toEqualTypeOf<never>();
});
test('the check can fail: a wrong type is reported by name', () => {
  type Wrong = Omit<TypesV2.SchemaTypes, 'Usage'> & { Usage: { input_tokens: string } };
  expectTypeOf<Disagreements<typeof ExactV2, Wrong>>().toEqualTypeOf<'Usage'>();
});
