/**
 * Building blocks of the generated zod mini schemas: the same checks as the classic ones, lossless
 * objects and open unions, with zod mini only (so bundles of the mini schemas stay small).
 */
import type { UnknownMember } from '@openresponses/types';
import * as z from 'zod/v4/mini';

import { recordKnownTypes } from './open-unions.js';

export { jsonInteger, maxCodePoints, maxKeys, minCodePoints, minKeys } from './json-checks.js';

/** Objects keep unknown keys at run time; their static type lists the known fields (see the classic `lossless`). */
export function lossless<Shape extends z.core.$ZodLooseShape>(
  schema: z.ZodMiniObject<Shape, z.core.$loose>,
): z.ZodMiniObject<Shape, z.core.$strip> {
  return schema as unknown as z.ZodMiniObject<Shape, z.core.$strip>;
}

/** What forward-compatible mode accepts for a member of an open union whose `type` it does not know. */
/** Its static output is `UnknownMember`, whose `type` no known literal matches, so narrowing by `type` works. */
export type OpaqueMemberSchema = z.ZodMiniType<UnknownMember>;

/** A union that also accepts members of unknown `type` intact; a known `type` with an invalid body still fails. */
export function openUnion<Known extends z.ZodMiniType>(
  known: Known,
  knownTypes: ReadonlyArray<string | null>,
): z.ZodMiniUnion<[Known, OpaqueMemberSchema]> {
  const known_ = new Set<unknown>(knownTypes);
  const opaque = z.looseObject({
    // abort: a known type's own errors are the useful ones (as in the classic openUnion).
    type: z
      .string()
      .check(z.refine((type) => !known_.has(type), { message: 'A known type must match its schema', abort: true })),
  });
  const union = z.union<[Known, OpaqueMemberSchema]>([known, opaque as unknown as OpaqueMemberSchema]);
  recordKnownTypes(union, knownTypes);
  return union;
}
