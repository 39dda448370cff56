/**
 * The checks where Zod's own differ from JSON Schema: string lengths count Unicode code points (not
 * UTF-16 units), `integer` means any integral number (not only safe integers), key counts. Built with
 * zod mini's `refine` (a plain check), so the classic and the mini schemas share them and a mini
 * bundle never pulls in classic Zod.
 */
import * as z from 'zod/v4/mini';

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

/** `value.length` bounds the code-point count from above, so the exact count is rarely needed. */
function atMostCodePoints(value: string, maximum: number): boolean {
  return value.length <= maximum || codePointLength(value) <= maximum;
}

function atLeastCodePoints(value: string, minimum: number): boolean {
  return value.length >= minimum && (value.length >= 2 * minimum || codePointLength(value) >= minimum);
}

// Checks are plain refinements, not superRefine: superRefine attaches `addIssue` to Zod's internal payload
// objects, which makes every later parse in the process polymorphic and about twice as slow.

export function maxCodePoints(maximum: number) {
  return /*#__PURE__*/ z.refine<string>((value) => atMostCodePoints(value, maximum), {
    message: `Too long: expected at most ${maximum} characters`,
  });
}

export function minCodePoints(minimum: number) {
  return /*#__PURE__*/ z.refine<string>((value) => atLeastCodePoints(value, minimum), {
    message: `Too short: expected at least ${minimum} characters`,
  });
}

/** JSON Schema's `integer`: any integral number, including ones beyond Number.MAX_SAFE_INTEGER (unlike z.int()). */
export const jsonInteger = /*#__PURE__*/ z.refine<number>((value) => Number.isInteger(value), {
  message: 'Expected an integer',
});

export function maxKeys(maximum: number) {
  return /*#__PURE__*/ z.refine<Record<string, unknown>>((value) => Object.keys(value).length <= maximum, {
    message: `Too many keys: expected at most ${maximum}`,
  });
}

export function minKeys(minimum: number) {
  return /*#__PURE__*/ z.refine<Record<string, unknown>>((value) => Object.keys(value).length >= minimum, {
    message: `Too few keys: expected at least ${minimum}`,
  });
}
