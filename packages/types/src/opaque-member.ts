/**
 * A member of an open union (items, content, annotations, tools, streaming events) whose `type` this
 * spec version does not define: a vendor extension or a newer spec's addition. Forward-compatible
 * parsing keeps it intact, so it can be ignored, inspected or passed on.
 */
export type OpaqueMember = {
  /** The member's type, whatever string the peer sent. */
  type: string;
  [key: string]: unknown;
};

/**
 * The static `type` of an unknown member. At run time it is whatever string the peer sent; statically
 * it is a pattern that no known or registered literal matches, so `item.type === 'message'` (or
 * `'acme:search_call'` on a registry union) narrows to that member instead of keeping an unknown one
 * whose `type` could be anything. It is still a string: print it, log it, compare it.
 */
export type UnknownType = `${string}(unknown type)`;

/**
 * How forward-compatible unions type their unknown members: reach them with a type guard
 * (`isUnknownMember` in `@openresponses/zod`, `registry.isUnknownItem`) or a switch's `default`.
 */
export type UnknownMember = {
  /** A type the union does not define (statically a pattern no literal matches). */
  type: UnknownType;
  [key: string]: unknown;
};
