import type { Registry } from '@openresponses/extensions';
import type { ValidationResult } from '@openresponses/types/validate';
import { versions as standalone } from '@openresponses/types/validate';
import { formatPath, type SpecVersion, validate } from '@openresponses/zod';

/** The request and response shapes the server checks. */
export type CheckedShape =
  | 'CreateResponseBody'
  | 'WebSocketResponseCreateEvent'
  | 'CompactResponseMethodPublicBody'
  | 'ResponseResource';

/** The first problem of a payload: its path as the error's `param` names it (`input[0].content`), and what is wrong. */
export interface FirstIssue {
  path: string;
  message: string;
}

export type Checked<T> = { success: true; data: T } | { success: false; issue: FirstIssue; issues: unknown[] };

type Validator = (value: unknown) => ValidationResult<unknown>;

/**
 * The spec's checks for one shape, or undefined when the version does not define it. Spec payloads are
 * checked by the standalone validators (`@openresponses/types/validate`: about 20x zod classic on a
 * create body or a response, with the issue at the wrong field's path); a registry's extended shapes are
 * Zod schemas composed at run time, so those are checked by Zod.
 */
export function validatorFor<T = unknown>(
  version: SpecVersion,
  shape: CheckedShape,
  registry?: Registry,
): ((value: unknown) => Checked<T>) | undefined {
  const extended =
    shape === 'CreateResponseBody' || shape === 'WebSocketResponseCreateEvent'
      ? registry?.schemas.CreateResponseBody
      : shape === 'ResponseResource'
        ? registry?.schemas.ResponseResource
        : undefined;
  if (extended) {
    const schema = extended as unknown as Parameters<typeof validate>[0];
    return (value) => {
      const result = validate(schema, value);
      if (result.success) return { success: true, data: result.data as T };
      return { success: false, issue: result.issues[0]!, issues: result.issues };
    };
  }
  // By version, then shape: a key made of the two was a new string to hash on every turn.
  let byShape = cache.get(version);
  if (byShape === undefined) cache.set(version, (byShape = new Map()));
  let checker = byShape.get(shape);
  if (checker === undefined) {
    const check = (standalone[version].exact as unknown as Record<string, Validator | undefined>)[`validate${shape}`];
    checker = check ? standaloneChecker(check) : null;
    byShape.set(shape, checker);
  }
  return (checker ?? undefined) as ((value: unknown) => Checked<T>) | undefined;
}

const cache = new Map<SpecVersion, Map<CheckedShape, ((value: unknown) => Checked<unknown>) | null>>();

function standaloneChecker(check: Validator): (value: unknown) => Checked<unknown> {
  return (value) => {
    const result = check(value);
    if (result.success) return result;
    const first = result.issues[0]!;
    return { success: false, issue: { path: formatPath(first.path), message: first.message }, issues: result.issues };
  };
}
