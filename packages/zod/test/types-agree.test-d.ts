// For every generated schema, z.infer equals the @openresponses/types type of the same name, in both
// directions (type identity), for every spec version and both validation modes.
import { expectTypeOf, test } from 'vitest';
import type * as z from 'zod/v4';
import type { SpecVersion, TypesByVersion } from '@openresponses/types';
import type * as TypesV2 from '@openresponses/types/2026-04-24';
import type { versions } from '../src/index.js';
import type { versions as miniVersions } from '../src/generated/mini/index.gen.js';
import type * as ExactV2 from '../src/generated/2026-04-24/exact.gen.js';

type Equal<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;

/** Names whose inferred type differs from the named type (never when all agree). */
type Disagreements<Schemas, Types> = {
  [K in keyof Types]: `${K & string}Schema` extends keyof Schemas
    ? Equal<z.output<Schemas[`${K & string}Schema`] & z.core.$ZodType>, Types[K]> extends true
      ? never
      : K
    : `missing schema for ${K & string}`;
}[keyof Types];

test('every spec version: spec-exact schemas infer exactly the named types', () => {
  type ByVersion = {
    [V in SpecVersion]: Disagreements<(typeof versions)[V]['exact'], TypesByVersion[V]['schemas']>;
  };
  expectTypeOf<ByVersion>().toEqualTypeOf<{ [V in SpecVersion]: never }>();
});
test('every spec version: forward-compatible schemas infer exactly the Forward types', () => {
  type ByVersion = {
    [V in SpecVersion]: Disagreements<(typeof versions)[V]['forward'], TypesByVersion[V]['forward']>;
  };
  expectTypeOf<ByVersion>().toEqualTypeOf<{ [V in SpecVersion]: never }>();
});
test('every spec version: zod mini schemas infer exactly the named types, both modes', () => {
  type ByVersion = {
    [V in SpecVersion]:
      | Disagreements<(typeof miniVersions)[V]['exact'], TypesByVersion[V]['schemas']>
      | Disagreements<(typeof miniVersions)[V]['forward'], TypesByVersion[V]['forward']>;
  };
  expectTypeOf<ByVersion>().toEqualTypeOf<{ [V in SpecVersion]: never }>();
});
test('the check can fail: a wrong type is reported by name', () => {
  type Wrong = Omit<TypesV2.SchemaTypes, 'Usage'> & { Usage: { input_tokens: string } };
  expectTypeOf<Disagreements<typeof ExactV2, Wrong>>().toEqualTypeOf<'Usage'>();
});
