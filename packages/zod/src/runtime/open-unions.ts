import type { UnknownMember } from '@openresponses/types';

/** The `type`s each open union knows, recorded by `openUnion` (classic and mini alike). */
const knownTypes = new WeakMap<object, ReadonlySet<unknown>>();

export function recordKnownTypes(union: object, types: Iterable<unknown>): void {
  knownTypes.set(union, new Set(types));
}

/**
 * Whether a parsed member of a forward-compatible (open) union is one whose `type` the union does not
 * know. Unknown members are typed `UnknownMember`, so `member.type === 'message'` narrows without
 * them; this guard is how code reaches them.
 */
export function isUnknownMember<
  M extends {
    /** The member's type. */
    type: unknown;
  },
>(union: object, member: M): member is Extract<M, UnknownMember> {
  const known = knownTypes.get(union);
  if (!known) throw new TypeError('isUnknownMember: the schema is not a forward-compatible (open) union');
  return !known.has(member.type);
}
