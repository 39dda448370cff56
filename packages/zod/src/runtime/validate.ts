// Types only: validating goes through the schema's own Standard Schema surface, so importing `validate`
// (the stream checker does) puts no Zod runtime in a bundle that has no Zod schema of its own.
import type * as core from 'zod/v4/core';

/** One problem `validate` found. */
export interface ValidationIssue {
  /** Where the problem is, in JavaScript accessor form: `input[2].content[0].text` (empty for the root). */
  path: string;
  /** What is wrong there. */
  message: string;
  /** Zod's issue code (`invalid_type`, `invalid_union`, `too_big`, …). */
  code: string;
}

/** What `validate` returns: the input itself when valid, otherwise its issues. */
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

/**
 * Validates `value` against a schema without copying it: on success `data` is the very input object,
 * so unknown and vendor fields, and key order, survive byte for byte when it is serialised again.
 * (The schemas are pure validators: no defaults or transforms, so the parsed copy would be equal anyway.)
 */
export function validate<S extends core.$ZodType>(schema: S, value: unknown): ValidationResult<core.output<S>> {
  // `~standard` serves classic and mini schemas alike, runs the schema with the Zod copy that built it, and
  // finalizes the issues without building a ZodError.
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) {
    result.catch(() => {}); // the rejection is reported by the throw below, not as an unhandled one
    throw new Error(
      'validate: the schema needs asynchronous parsing (or a check threw); Open Responses schemas are synchronous',
    );
  }
  if (!result.issues) return { success: true, data: value as core.output<S> };
  // Zod reports its own issues through Standard Schema: unions keep their per-member `errors`.
  return { success: false, issues: flattenIssues(result.issues as readonly core.$ZodIssue[]) };
}

/** Union failures carry one issue list per member; report the member that got furthest instead of "invalid input". */
function flattenIssues(issues: readonly core.$ZodIssue[], prefix: PropertyKey[] = []): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && 'errors' in issue && issue.errors.length > 0) {
      const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
      if (depth(best) > 0) {
        out.push(...flattenIssues(best, path));
        continue;
      }
    }
    out.push({ path: formatPath(path), message: issue.message, code: issue.code });
  }
  return out;
}

/** How far into the value a member got: the deepest path, looking inside nested union failures. */
function depth(issues: readonly core.$ZodIssue[]): number {
  return Math.max(
    0,
    ...issues.map(
      (i) => i.path.length + (i.code === 'invalid_union' && 'errors' in i ? Math.max(0, ...i.errors.map(depth)) : 0),
    ),
  );
}

/** A Zod issue path in accessor form: `['input', 2, 'content']` -> `input[2].content`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment))
      out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
