/**
 * Building blocks of the generated classic schemas: the JSON Schema checks, lossless objects and open unions.
 */
import type { UnknownMember } from '@openresponses/types';
import * as z from 'zod/v4';

import { recordKnownTypes } from './open-unions.js';

export { jsonInteger, maxCodePoints, maxKeys, minCodePoints, minKeys } from './json-checks.js';

/**
 * Objects in the spec allow unknown keys, and parsing must not drop vendor fields, so every object is
 * loose at run time. Its static type lists only the known fields, like the `@openresponses/types`
 * type it mirrors: extra keys are still there, as TypeScript allows for any object type.
 */
export function lossless<Shape extends z.core.$ZodLooseShape>(
  schema: z.ZodObject<Shape, z.core.$loose>,
): z.ZodObject<Shape, z.core.$strip> {
  return schema as unknown as z.ZodObject<Shape, z.core.$strip>;
}

/** What forward-compatible mode accepts for a member of an open union whose `type` it does not know. */
/** Its static output is `UnknownMember`, whose `type` no known literal matches, so narrowing by `type` works. */
export type OpaqueMemberSchema = z.ZodType<UnknownMember>;

/**
 * A union that also accepts members of unknown `type` intact (clients MUST ignore what they do not know).
 * A known `type` with an invalid body still fails: only unknown types are opaque.
 */
export function openUnion<Known extends z.ZodType>(
  known: Known,
  knownTypes: ReadonlyArray<string | null>,
): z.ZodUnion<[Known, OpaqueMemberSchema]> {
  const known_ = new Set<unknown>(knownTypes);
  const opaque = z.looseObject({
    // abort: a known type's own errors are the useful ones; Zod reports a lone non-aborted branch instead of the union.
    type: z
      .string()
      .refine((type) => !known_.has(type), { message: 'A known type must match its schema', abort: true }),
  });
  const union = z.union<[Known, OpaqueMemberSchema]>([known, opaque as unknown as OpaqueMemberSchema]);
  recordKnownTypes(union, knownTypes);
  return union;
}
