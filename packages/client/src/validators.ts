import type { Registry } from '@openresponses/extensions';
import type { SpecVersion } from '@openresponses/types';
import type { ValidationResult } from '@openresponses/types/validate';
import {
  validateCompactResourceByVersion,
  validateResponseResourceByVersion,
  validateStreamingEventByVersion,
} from '@openresponses/types/validate/by-version';

/** The payloads the client checks. */
export type Payload = 'ResponseResource' | 'CompactResource' | 'StreamingEvent';

/** A payload's problems, each with the path of the wrong field (`output[0].content[1].text`). */
export type Checked = { success: true } | { success: false; issues: Array<{ path: string; message: string }> };

type Validator = (value: unknown) => ValidationResult<unknown>;

/**
 * The standalone validators (`@openresponses/types/validate/by-version`) of the three payloads, every version
 * and mode: the `versions` map of `@openresponses/types/validate` keeps every validator of every version in
 * a bundle (25.7 KB gzip), these tables only these payloads' (9.7 KB), and they check a response ~50x as
 * fast as the zod mini schemas (bench/validation-response.bench.ts). A new spec version needs no change here.
 */
const standalone: Record<Payload, Partial<Record<SpecVersion, Record<'exact' | 'forward', Validator>>>> = {
  ResponseResource: validateResponseResourceByVersion,
  CompactResource: validateCompactResourceByVersion,
  StreamingEvent: validateStreamingEventByVersion,
};

/**
 * The check for one payload under the client's policy, or undefined when nothing checks it (`validate:
 * 'off'`, or a payload the version does not define). A registry's extended response and event schemas
 * replace the spec's.
 */
export function checkerFor(
  payload: Payload,
  version: SpecVersion,
  mode: 'exact' | 'forward' | 'off',
  registry?: Registry,
): ((value: unknown) => Checked) | undefined {
  if (mode === 'off') return undefined;
  // A registry's extended schemas are Zod schemas composed at run time: the registry checks them, so the
  // client itself bundles no Zod.
  if (registry && payload !== 'CompactResource') return (value) => registry.validate(payload, value);
  const check = standalone[payload][version]?.[mode];
  if (!check) return undefined;
  return (value) => {
    const result = check(value);
    if (result.success) return result;
    return { success: false, issues: result.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
  };
}

/** `['output', 0, 'content']` -> `output[0].content` (the path convention of `@openresponses/zod`). */
export function formatPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
