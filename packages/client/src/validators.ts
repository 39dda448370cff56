import type { Registry } from '@openresponses/extensions';
import type { SpecVersion } from '@openresponses/types';
import type { ValidationResult } from '@openresponses/types/validate';
import {
  validateResponseResource as response_2026_01_15,
  validateStreamingEvent as event_2026_01_15,
} from '@openresponses/types/validate/2026-01-15';
import {
  validateResponseResource as responseForward_2026_01_15,
  validateStreamingEvent as eventForward_2026_01_15,
} from '@openresponses/types/validate/2026-01-15/forward';
import {
  validateCompactResource as compact_2026_04_24,
  validateResponseResource as response_2026_04_24,
  validateStreamingEvent as event_2026_04_24,
} from '@openresponses/types/validate/2026-04-24';
import {
  validateCompactResource as compactForward_2026_04_24,
  validateResponseResource as responseForward_2026_04_24,
  validateStreamingEvent as eventForward_2026_04_24,
} from '@openresponses/types/validate/2026-04-24/forward';

/** The payloads the client checks. */
export type Payload = 'ResponseResource' | 'CompactResource' | 'StreamingEvent';

/** A payload's problems, each with the path of the wrong field (`output[0].content[1].text`). */
export type Checked = { success: true } | { success: false; issues: Array<{ path: string; message: string }> };

type Validator = (value: unknown) => ValidationResult<unknown>;
type Validators = { [P in Payload]?: Validator };

/**
 * The standalone validators (`@openresponses/types/validate`) of every version and mode, imported by name:
 * the `versions` map of that entry point keeps every validator of every version in a bundle (25.7 KB
 * gzip), these ten cost 9.7 KB, and they check a response ~50x as fast as the zod mini schemas
 * (bench/validation-response.bench.ts). A new spec version is a compile error here until it is added.
 */
const standalone: Record<SpecVersion, Record<'exact' | 'forward', Validators>> = {
  '2026-01-15': {
    exact: { ResponseResource: response_2026_01_15, StreamingEvent: event_2026_01_15 },
    forward: { ResponseResource: responseForward_2026_01_15, StreamingEvent: eventForward_2026_01_15 },
  },
  '2026-04-24': {
    exact: {
      ResponseResource: response_2026_04_24,
      CompactResource: compact_2026_04_24,
      StreamingEvent: event_2026_04_24,
    },
    forward: {
      ResponseResource: responseForward_2026_04_24,
      CompactResource: compactForward_2026_04_24,
      StreamingEvent: eventForward_2026_04_24,
    },
  },
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
  const check = standalone[version][mode][payload];
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
