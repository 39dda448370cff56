/**
 * The building blocks of the generated standalone validators (`@openresponses/types/validate`). A check
 * runs in one of two modes: without a path it answers true or false and stops at the first failure
 * (nothing is allocated); with a path it records every issue it finds, at the path of the field that is
 * wrong, into the sink that `validate` sets up. Only a failed `validate` runs the second mode.
 */

/** Where a problem is: object keys and array indexes from the validated value down (empty for the value itself). */
export type IssuePath = (string | number)[];

/** One problem a generated `validate<Name>` found, at the path of the field that is wrong. */
export interface ValidationIssue {
  /** Where: object keys and array indexes from the validated value down. */
  path: IssuePath;
  /** `invalid_type`, `invalid_value`, `invalid_union`, `invalid_format`, `too_big`, `too_small`, `unrecognized_keys`. */
  code: string;
  /** What is wrong there. */
  message: string;
  /** What the schema allows there (`string`, `"message" | "function_call"`, …). */
  expected?: string;
  /** What the value had there (its JSON type, or the value itself for a wrong literal). */
  received?: string;
}

/** What a generated `validate<Name>` returns: the input itself when valid, otherwise its issues. */
export type ValidationResult<T> =
  | {
      /** Valid. */
      success: true;
      /** The input itself, typed (nothing copied or stripped). */
      data: T;
    }
  | {
      /** Not valid. */
      success: false;
      /** Every problem found, the one nearest the cause first. */
      issues: ValidationIssue[];
    };

/** A generated check: with a path it reports issues, without one it only answers. */
export type Check = (value: unknown, path?: IssuePath) => boolean;

let sink: ValidationIssue[] = [];

/**
 * The mode of the check under way, set by each entry point before it runs one (checks are synchronous,
 * so no two runs interleave): open unions accept members of unknown `type` when `forward` is set.
 */
export const mode = { forward: false };

function collect(check: Check, value: unknown, path: IssuePath): ValidationIssue[] {
  const saved = sink;
  const issues: ValidationIssue[] = (sink = []);
  try {
    check(value, path);
  } finally {
    sink = saved;
  }
  return issues;
}

/**
 * Runs `check` on `value`. On success `data` is the very input (nothing is copied or stripped, so unknown
 * and vendor fields survive byte for byte); on failure the issues, first the one nearest the cause.
 */
export function validate<T>(check: Check, value: unknown, forward: boolean): ValidationResult<T> {
  mode.forward = forward;
  if (check(value)) return { success: true, data: value as T };
  const issues = collect(check, value, []);
  // A check that fails fast also fails when reporting; this only guards a generator bug from passing silently.
  if (issues.length === 0) issues.push({ path: [], code: 'custom', message: 'Invalid value' });
  return { success: false, issues };
}

function issue(path: IssuePath, code: string, message: string, expected?: string, received?: string): false {
  const entry: ValidationIssue = { path, code, message };
  if (expected !== undefined) entry.expected = expected;
  if (received !== undefined) entry.received = received;
  sink.push(entry);
  return false;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

function shown(value: unknown): string {
  const text =
    typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' ? kind(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function invalidType(path: IssuePath | undefined, expected: string, value: unknown): false {
  if (path) issue(path, 'invalid_type', `Expected ${expected}, received ${kind(value)}`, expected, kind(value));
  return false;
}

/** A required field is absent: reported at the field's own path. */
export function missing(path: IssuePath, key: string, expected: string): false {
  return issue([...path, key], 'invalid_type', `Required: expected ${expected}`, expected, 'undefined');
}

/** An `x-openresponses-disallowed` field is present. */
export function disallowed(path: IssuePath, key: string, value: unknown): false {
  return issue([...path, key], 'invalid_type', 'This field must be absent', 'never', kind(value));
}

/** A key that a closed object (`additionalProperties: false`) does not define: reported at the key. */
export function unrecognizedKey(path: IssuePath, key: string): false {
  return issue([...path, key], 'unrecognized_keys', `Unrecognized key ${JSON.stringify(key)}`, 'no such key', key);
}

export function invalidValue(path: IssuePath | undefined, allowed: readonly unknown[], value: unknown): false {
  if (path) {
    const expected = allowed.map((v) => JSON.stringify(v)).join(' | ');
    issue(path, 'invalid_value', `Expected ${expected}, received ${shown(value)}`, expected, shown(value));
  }
  return false;
}

/** A discriminator value no member declares: reported at the discriminator, not at the union. */
export function invalidTag(
  path: IssuePath | undefined,
  key: string,
  allowed: readonly unknown[],
  value: unknown,
): false {
  if (path) {
    const expected = allowed.map((v) => (v === undefined ? 'absent' : JSON.stringify(v))).join(' | ');
    const received = value === undefined ? 'undefined' : shown(value);
    issue(
      [...path, key],
      'invalid_union',
      `Unknown ${key}: expected ${expected}, received ${received}`,
      expected,
      received,
    );
  }
  return false;
}

/** JSON Schema counts string lengths in Unicode code points, not UTF-16 units. */
function codePoints(value: string): number {
  let length = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

/** A string with length bounds or a pattern (`value.length` bounds the code-point count from above). */
export function string(
  value: unknown,
  path: IssuePath | undefined,
  minLength: number | undefined,
  maxLength: number | undefined,
  pattern: RegExp | undefined,
): boolean {
  if (typeof value !== 'string') return invalidType(path, 'string', value);
  if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength)
    return !!path && issue(path, 'too_big', `Too long: expected at most ${maxLength} characters`, `<= ${maxLength}`);
  if (
    minLength !== undefined &&
    value.length < 2 * minLength &&
    (value.length < minLength || codePoints(value) < minLength)
  )
    return (
      !!path && issue(path, 'too_small', `Too short: expected at least ${minLength} characters`, `>= ${minLength}`)
    );
  if (pattern !== undefined && !pattern.test(value))
    return !!path && issue(path, 'invalid_format', `Expected a string matching ${pattern}`, String(pattern));
  return true;
}

/** A number with bounds or `integer` (JSON Schema's: any integral number, not only safe integers). */
export function number(
  value: unknown,
  path: IssuePath | undefined,
  integer: boolean,
  minimum: number | undefined,
  maximum: number | undefined,
  exclusiveMinimum: number | undefined,
  exclusiveMaximum: number | undefined,
): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value))
    return invalidType(path, integer ? 'integer' : 'number', value);
  if (integer && !Number.isInteger(value)) return invalidType(path, 'integer', value);
  if (minimum !== undefined && value < minimum)
    return !!path && issue(path, 'too_small', `Too small: expected >= ${minimum}`, `>= ${minimum}`, String(value));
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum)
    return (
      !!path &&
      issue(path, 'too_small', `Too small: expected > ${exclusiveMinimum}`, `> ${exclusiveMinimum}`, String(value))
    );
  if (maximum !== undefined && value > maximum)
    return !!path && issue(path, 'too_big', `Too big: expected <= ${maximum}`, `<= ${maximum}`, String(value));
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum)
    return (
      !!path &&
      issue(path, 'too_big', `Too big: expected < ${exclusiveMaximum}`, `< ${exclusiveMaximum}`, String(value))
    );
  return true;
}

export function tooFewItems(path: IssuePath | undefined, minimum: number): false {
  return !!path && issue(path, 'too_small', `Too few items: expected at least ${minimum}`, `>= ${minimum} items`);
}

export function tooManyItems(path: IssuePath | undefined, maximum: number): false {
  return !!path && issue(path, 'too_big', `Too many items: expected at most ${maximum}`, `<= ${maximum} items`);
}

/** `minProperties` / `maxProperties`. */
export function keyCount(
  value: Record<string, unknown>,
  path: IssuePath | undefined,
  minimum: number | undefined,
  maximum: number | undefined,
): boolean {
  let count = 0;
  for (const _ in value) count++;
  if (minimum !== undefined && count < minimum)
    return !!path && issue(path, 'too_small', `Too few keys: expected at least ${minimum}`, `>= ${minimum} keys`);
  if (maximum !== undefined && count > maximum)
    return !!path && issue(path, 'too_big', `Too many keys: expected at most ${maximum}`, `<= ${maximum} keys`);
  return true;
}

/** How far into the value a member's issues reach. */
function depth(issues: ValidationIssue[]): number {
  let deepest = 0;
  for (const entry of issues) if (entry.path.length > deepest) deepest = entry.path.length;
  return deepest;
}

/**
 * Reports a union that no member matched (called only when reporting): the issues of the member that got
 * furthest into the value, so an issue names the member's bad field; when every member fails at the value
 * itself, one issue listing what the union allows.
 */
export function union(value: unknown, path: IssuePath, members: readonly Check[], expected: string): false {
  let best: ValidationIssue[] | undefined;
  let bestScore = -1;
  for (const member of members) {
    const issues = collect(member, value, path);
    // A member whose only complaint is the value's type did not get anywhere.
    const typeOnly = issues.every((i) => i.code === 'invalid_type' && i.path.length === path.length);
    const score = typeOnly ? -1 : depth(issues);
    if (score > bestScore || (score === bestScore && best && issues.length < best.length)) {
      best = issues;
      bestScore = score;
    }
  }
  if (!best || bestScore < 0) return invalidType(path, expected, value);
  for (const entry of best) sink.push(entry);
  return false;
}

/** `oneOf` whose members may overlap: exactly one must match. */
export function exactlyOne(
  value: unknown,
  path: IssuePath | undefined,
  members: readonly Check[],
  expected: string,
): boolean {
  let matches = 0;
  for (const member of members) if (member(value)) matches++;
  if (matches === 1) return true;
  if (!path) return false;
  if (matches === 0) return union(value, path, members, expected);
  return issue(path, 'invalid_union', `Matches more than one of ${expected}`, expected);
}
