/**
 * The building blocks of the generated standalone validators (`@openresponses/types/validate`). Each
 * schema has two generated functions: a test (`is_X(value)`) that answers true or false and stops at the
 * first failure (nothing is allocated), and a report (`report_X(value, path)`) that records every issue it
 * finds, at the path of the field that is wrong, into the sink that `invalid` sets up. Only a failed
 * `validate…` runs a report.

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

/** A generated test: whether a value is valid. */
export type Test = (value: unknown) => boolean;
/** A generated report: records the issues of a value at `path`, and whether it found none. */
export type Report = (value: unknown, path: IssuePath) => boolean;

let sink: ValidationIssue[] = [];

/**
 * The mode of the check under way, set by each entry point before it runs one (checks are synchronous,
 * so no two runs interleave): open unions accept members of unknown `type` when `forward` is set.
 */
export const mode = { forward: false };

function collect(report: Report, value: unknown, path: IssuePath): ValidationIssue[] {
  const saved = sink;
  const issues: ValidationIssue[] = (sink = []);
  try {
    report(value, path);
  } finally {
    sink = saved;
  }
  return issues;
}

/**
 * The failed result of a `validate…` whose test rejected `value` (the mode still set): its issues, first
 * the one nearest the cause. (A valid value's result is built in the entry point itself: `data` is the very
 * input, nothing copied or stripped, so unknown and vendor fields survive byte for byte.)
 */
export function invalid(report: Report, value: unknown): { success: false; issues: ValidationIssue[] } {
  const issues = collect(report, value, []);
  // A rejected value always has an issue; this only guards a generator bug from passing silently.
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

/** A JSON object (not an array). Not a type guard: the generated checks keep their values `any`. */
export const isObject = (value: unknown): boolean =>
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

/** Whether `value` is a string within length bounds and matching a pattern (the test of {@link string}). */
export function isString(
  value: unknown,
  minLength: number | undefined,
  maxLength: number | undefined,
  pattern: RegExp | undefined,
): boolean {
  return (
    typeof value === 'string' &&
    (maxLength === undefined || value.length <= maxLength || codePoints(value) <= maxLength) &&
    (minLength === undefined || value.length >= 2 * minLength || codePoints(value) >= minLength) &&
    (pattern === undefined || pattern.test(value))
  );
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
export function union(value: unknown, path: IssuePath, members: readonly Report[], expected: string): false {
  let best: ValidationIssue[] | undefined;
  let bestRank: number[] = [];
  for (const member of members) {
    const issues = collect(member, value, path);
    // A member whose only complaint is the value's type (or that it is not one of its literals) did not get
    // anywhere; one whose constant field
    // (a `type` of one value) differs is another kind of value; otherwise the one that got furthest.
    const typeOnly = issues.every(
      (i) =>
        i.path.length === path.length &&
        (i.code === 'invalid_type' || (i.code === 'invalid_value' && typeof value === 'object' && value !== null)),
    );
    const otherKind = issues.some(
      (i) => i.code === 'invalid_value' && i.path.length === path.length + 1 && !i.expected?.includes(' | '),
    );
    const rank = [typeOnly ? -1 : otherKind ? 0 : 1, depth(issues), -issues.length];
    if (
      !best ||
      rank[0]! > bestRank[0]! ||
      (rank[0] === bestRank[0] && (rank[1]! > bestRank[1]! || (rank[1] === bestRank[1] && rank[2]! > bestRank[2]!)))
    ) {
      best = issues;
      bestRank = rank;
    }
  }
  if (!best || bestRank[0]! < 0) return invalidType(path, expected, value);
  for (const entry of best) sink.push(entry);
  return false;
}

/** `oneOf` whose members may overlap: whether exactly one matches. */
export function exactlyOneOf(value: unknown, members: readonly Test[]): boolean {
  let matches = 0;
  for (const member of members) if (member(value)) matches++;
  return matches === 1;
}

/** Reports a `oneOf` whose members may overlap: none or more than one matched. */
export function exactlyOne(
  value: unknown,
  path: IssuePath,
  tests: readonly Test[],
  reports: readonly Report[],
  expected: string,
): boolean {
  let matches = 0;
  for (const test of tests) if (test(value)) matches++;
  if (matches === 1) return true;
  if (matches === 0) return union(value, path, reports, expected);
  return issue(path, 'invalid_union', `Matches more than one of ${expected}`, expected);
}

/**
 * Whether the tag `key` of a value that a discriminated union rejected is what is wrong (a changed or
 * dropped `type`), and if so reports it, at the tag: the value is valid under other tags of the union
 * (`tags`: each tag, `undefined` for "absent", with the fields its members declare that not all members
 * do), and its fields say so: it has one that its own tag's members lack and the other's declare, or (as
 * `evidence` allows: `fits`, `hint`) all it has of the union's fields are the other's (`hint`: even none).
 */
export function retagged(
  value: Record<string, unknown>,
  path: IssuePath,
  key: string,
  tags: ReadonlyArray<readonly unknown[]>,
  union: Test,
  evidence: 'evidence' | 'fits' | 'hint',
): boolean {
  const tag = value[key];
  const own = (tags.find((row) => row[0] === tag)?.[1] ?? []) as string[];
  const present = new Set<string>();
  for (const row of tags) for (const k of row[1] as string[]) if (value[k] !== undefined) present.add(k);
  const fitting: unknown[] = [];
  for (const [other, keys] of tags as ReadonlyArray<readonly [unknown, string[]]>) {
    const declared = keys.filter((k) => present.has(k));
    if (other === tag) continue;
    const foreign = declared.some((k) => !own.includes(k));
    const fits = declared.length === present.size && (declared.length > 0 || evidence === 'hint');
    if (!foreign && !(fits && evidence !== 'evidence')) continue;
    const copy = { ...value };
    if (other === undefined) delete copy[key];
    else copy[key] = other;
    if (union(copy)) fitting.push(other);
  }
  if (fitting.length === 0) return false;
  const expected = fitting.map((t) => (t === undefined ? 'absent' : JSON.stringify(t))).join(' | ');
  const received = tag === undefined ? 'undefined' : shown(tag);
  const message = `Wrong ${key}: the other fields are those of ${key} ${expected}, received ${received}`;
  return !issue([...path, key], 'invalid_union', message, expected, received);
}

/**
 * Reports a discriminated union (`union` is its test) by its tag `key`: `rows` holds, per tag value, the
 * fields its members declare that not all do, then the member's report or the key and rows of a nested
 * plan. The member's issues come after the tag's when the tag is what is wrong ({@link retagged}); a tag
 * no row has is reported at the tag (passing in forward mode when `open`), unless `outer`'s tag is wrong.
 */
export function tagged(
  value: Record<string, unknown>,
  path: IssuePath,
  key: string,
  rows: ReadonlyArray<readonly unknown[]>,
  union: Test,
  open: boolean,
  outer?: readonly [string, ReadonlyArray<readonly unknown[]>],
): boolean {
  if (!isObject(value)) return invalidType(path, 'object', value);
  const tag = value[key];
  for (const row of rows) {
    if (row[0] !== tag) continue;
    if (typeof row[2] === 'string')
      return tagged(value, path, row[2], row[3] as ReadonlyArray<readonly unknown[]>, union, false, [key, rows]);
    // Two or more fields of the member missing, and the value all the other's: the tag is wrong first. (One
    // missing field and a fit elsewhere is as likely a forgotten field: a text delta without the
    // `logprobs` of 2026-01-15 is a refusal delta by its fields, and `{ type: 'output_text', text }` an
    // input text as much as an output text without its annotations.)
    const issues = collect(row[2] as Report, value, path);
    const missingFields = issues.filter(
      (i) => i.path.length === path.length + 1 && i.code === 'invalid_type' && i.received === 'undefined',
    ).length;
    const wrongTag = retagged(value, path, key, rows, union, missingFields >= 2 ? 'fits' : 'evidence');
    for (const entry of issues) sink.push(entry);
    // Otherwise, with a field missing, the tag that would fit comes after the member's issues, as a hint.
    if (!wrongTag && missingFields > 0) retagged(value, path, key, rows, union, 'hint');
    return issues.length === 0 && !wrongTag;
  }
  if (open && mode.forward && typeof tag === 'string') return true;
  if (outer && retagged(value, path, outer[0], outer[1], union, 'evidence')) return false;
  return invalidTag(
    path,
    key,
    rows.map((row) => row[0]),
    tag,
  );
}

/**
 * Reports an object's fields from its rows: `[key, test, report, expected, flags?]`, or `[key, allowed,
 * flags?]` for a tag or an enum; flags: 1 optional, 2 nullable. A field is missing (`expected` is what it
 * should be), valid by its test, or its report says why.
 */
export function fields(
  value: Record<string, unknown>,
  path: IssuePath,
  rows: ReadonlyArray<readonly unknown[]>,
): boolean {
  let ok = true;
  for (const row of rows) {
    const key = row[0] as string;
    const field = value[key];
    const literals = Array.isArray(row[1]) ? (row[1] as unknown[]) : undefined;
    const flags = ((literals ? row[2] : row[4]) as number | undefined) ?? 0;
    if (field === undefined) {
      if (!(flags & 1))
        ok = missing(path, key, literals ? literals.map((v) => JSON.stringify(v)).join(' | ') : (row[3] as string));
    } else if (field === null && flags & 2) continue;
    else if (literals) {
      if (!literals.includes(field)) ok = invalidValue([...path, key], literals, field);
    } else if (!(row[1] as Test)(field) && !(row[2] as Report)(field, [...path, key])) ok = false;
  }
  return ok;
}

/** The tests of the plain JSON types, for {@link fields} (functions, not `Number.isInteger` itself, so that a bundler can drop the rows that use them). */
export const isText: Test = (value) => typeof value === 'string';
export const isBoolean: Test = (value) => typeof value === 'boolean';
export const isInteger: Test = (value) => Number.isInteger(value);
export const isNumber: Test = (value) => Number.isFinite(value);

/** Reports a field that must be one of `allowed` (a tag or an enum): missing, or not allowed. */
export function oneOf(path: IssuePath, key: string, value: unknown, allowed: readonly unknown[]): boolean {
  if (allowed.includes(value)) return true;
  if (value !== undefined) return invalidValue([...path, key], allowed, value);
  return missing(path, key, allowed.map((v) => JSON.stringify(v)).join(' | '));
}

/** The reports of the plain JSON types (run, as every report, on a value that failed the type's test). */
export const reportString: Report = (value, path) => invalidType(path, 'string', value);
export const reportNumber: Report = (value, path) => invalidType(path, 'number', value);
export const reportInteger: Report = (value, path) => invalidType(path, 'integer', value);
export const reportBoolean: Report = (value, path) => invalidType(path, 'boolean', value);
