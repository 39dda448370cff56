/**
 * Building blocks the generated schemas use where Zod's own checks differ from JSON Schema:
 * string lengths count Unicode code points (not UTF-16 units), `integer` means any integral number
 * (not only safe integers), and objects keep keys they do not know.
 */
import { z } from 'zod';

function codePointLength(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

// Checks are plain refinements, not superRefine: superRefine attaches `addIssue` to Zod's internal payload
// objects, which makes every later parse in the process polymorphic and about twice as slow.

export function maxCodePoints(maximum: number) {
  // `value.length` bounds the code-point count from above, so the exact count is rarely needed.
  return z.refine<string>((value) => value.length <= maximum || codePointLength(value) <= maximum, {
    message: `Too long: expected at most ${maximum} characters`,
  });
}

export function minCodePoints(minimum: number) {
  return z.refine<string>(
    (value) => value.length >= minimum && (value.length >= 2 * minimum || codePointLength(value) >= minimum),
    {
      message: `Too short: expected at least ${minimum} characters`,
    },
  );
}

/** JSON Schema's `integer`: any integral number, including ones beyond Number.MAX_SAFE_INTEGER (unlike z.int()). */
export const jsonInteger = z.refine<number>((value) => Number.isInteger(value), { message: 'Expected an integer' });

export function maxKeys(maximum: number) {
  return z.refine<Record<string, unknown>>((value) => Object.keys(value).length <= maximum, {
    message: `Too many keys: expected at most ${maximum}`,
  });
}

export function minKeys(minimum: number) {
  return z.refine<Record<string, unknown>>((value) => Object.keys(value).length >= minimum, {
    message: `Too few keys: expected at least ${minimum}`,
  });
}

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
export type OpaqueMemberSchema = z.ZodObject<{ type: z.ZodString }, z.core.$loose>;

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
  return z.union([known, opaque]);
}
