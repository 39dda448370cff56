// The standalone validators' behaviour beyond verdicts (those are held to Ajv's by the zod package's
// differential test): issue paths name the failing member's field, the input is returned as is, unknown
// members pass only in forward mode, and the generated code needs no eval and no imports beyond its runtime.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import {
  forward,
  isResponseResource,
  isStreamingEvent,
  isUsage,
  SPEC_VERSION,
  validateCreateResponseBody,
  validateResponseResource,
  validateStreamingEvent,
  validateUsage,
  versions,
} from '../src/generated/validate/index.gen.js';
import * as byVersion from '../src/generated/validate/by-version/index.gen.js';
import * as forwardEntry from '../src/generated/validate/forward/index.gen.js';
import { LATEST_SPEC_VERSION, SPEC_VERSIONS } from '../src/index.js';

const usage = {
  input_tokens: 12,
  output_tokens: 30,
  total_tokens: 42,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 8 },
};

function response(): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1769990400,
    completed_at: 1769990403,
    status: 'completed',
    incomplete_details: null,
    model: 'm',
    previous_response_id: null,
    instructions: null,
    output: [
      {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
    ],
    error: null,
    tools: [],
    tool_choice: 'auto',
    truncation: 'disabled',
    parallel_tool_calls: true,
    text: { format: { type: 'text' } },
    top_p: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    top_logprobs: 0,
    temperature: 1,
    reasoning: null,
    usage: structuredClone(usage),
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
  };
}

type Json = Record<string | number, unknown> & unknown[];
const at = (value: unknown, ...keys: Array<string | number>) =>
  keys.reduce((node, key) => (node as Json)[key], value) as Json;

describe('valid payloads', () => {
  test('pass both paths, and validate returns the very input with unknown fields kept', () => {
    const value = { ...response(), 'acme:trace': { id: 7 } };
    const result = validateResponseResource(value);
    expect(result.success ? [] : result.issues).toEqual([]);
    expect(isResponseResource(value)).toBe(true);
    expect(result.success && result.data).toBe(value);
    expect(isUsage(usage)).toBe(true);
  });
});

describe('issues are at the path of the wrong field', () => {
  const cases: Array<[string, (value: Record<string, unknown>) => void, Array<string | number>, string]> = [
    [
      'a wrong type inside a discriminated member',
      (v) => (at(v, 'output', 0, 'content', 0).text = 5),
      ['output', 0, 'content', 0, 'text'],
      'invalid_type',
    ],
    [
      'a missing required field of a member',
      (v) => delete at(v, 'output', 1).call_id,
      ['output', 1, 'call_id'],
      'invalid_type',
    ],
    ['an unknown discriminator', (v) => (at(v, 'output', 1).type = 'nope'), ['output', 1, 'type'], 'invalid_union'],
    ['a wrong enum value', (v) => (v.truncation = 'sometimes'), ['truncation'], 'invalid_value'],
    ['a non-integer integer', (v) => (at(v, 'usage').input_tokens = 1.5), ['usage', 'input_tokens'], 'invalid_type'],
    [
      'a member of a plain union',
      (v) => (v.tool_choice = { type: 'function', name: 5 }),
      ['tool_choice', 'name'],
      'invalid_type',
    ],
    ['the root itself', () => undefined, [], 'invalid_type'],
  ];
  test.each(cases)('%s', (_label, mutate, expectedPath, code) => {
    const value = response();
    mutate(value);
    const result = validateResponseResource(_label === 'the root itself' ? [value] : value);
    expect(result.success).toBe(false);
    expect(isResponseResource(value) && _label !== 'the root itself').toBe(false);
    if (result.success) return;
    expect(result.issues[0]).toMatchObject({ path: expectedPath, code });
    expect(result.issues[0]!.message.length).toBeGreaterThan(0);
  });

  // Issue 38: a wrong or dropped discriminator is reported at the discriminator, not as a field of the
  // member that the wrong tag picks (before: `want /input/2/type, got /input/2/encrypted_content`).
  describe('a wrong or dropped tag is reported at the tag', () => {
    const body = () => ({
      model: 'm',
      input: [
        { type: 'message', role: 'user', content: 'hi' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
      ] as Array<Record<string, unknown>>,
    });
    test('a dropped type, where the tag-less member (a message) is picked', () => {
      const value = body();
      delete value.input[2]!.type;
      const result = validateCreateResponseBody(value);
      expect(result.success ? [] : result.issues[0]).toMatchObject({
        path: ['input', 2, 'type'],
        code: 'invalid_union',
        expected: '"reasoning" | "compaction"', // both fit its fields
        received: 'undefined',
      });
    });
    test('a type changed to another member, and to one with a nested tag (message, by role)', () => {
      const value = body();
      value.input[1]!.type = 'function_call_output';
      value.input[3]!.type = 'message';
      const result = validateCreateResponseBody(value);
      expect(result.success ? [] : result.issues.map((i) => i.path)).toEqual([
        ['input', 1, 'type'],
        ['input', 1, 'output'],
        ['input', 3, 'type'],
      ]);
      const output = response();
      at(output, 'output', 1).type = 'message';
      const reported = validateResponseResource(output);
      expect(reported.success ? [] : reported.issues[0]).toMatchObject({
        path: ['output', 1, 'type'],
        expected: '"function_call"',
        received: '"message"',
      });
    });
    test('a field that the wrong member lacks but a missing field of the right one is still the field', () => {
      const value = response();
      delete at(value, 'output', 1).call_id;
      const result = validateResponseResource(value);
      expect(result.success ? [] : result.issues.map((i) => i.path)).toEqual([['output', 1, 'call_id']]);
      // A value with no field but its tag says nothing against the tag: the member's missing field it is.
      const bare = response();
      at(bare, 'output', 0).content = [{ type: 'output_text' }];
      const issues = validateResponseResource(bare);
      expect(issues.success ? [] : issues.issues[0]!.path).toEqual(['output', 0, 'content', 0, 'text']);
    });
  });

  test('every issue is reported, not only the first', () => {
    const value = response();
    delete value.id;
    value.store = 'yes';
    const result = validateResponseResource(value);
    expect(result.success ? [] : result.issues.map((i) => i.path)).toEqual([['id'], ['store']]);
  });

  test('streaming events dispatch on type and report the event field', () => {
    const event = {
      type: 'response.output_text.delta',
      sequence_number: 3,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 7,
      logprobs: [],
    };
    const result = validateStreamingEvent(event);
    expect(result.success ? [] : result.issues.map((i) => i.path)).toEqual([['delta']]);
    expect(isStreamingEvent({ ...event, delta: 'x' })).toBe(true);
  });
});

describe('modes', () => {
  const vendorEvent = { type: 'acme:progress', sequence_number: 1, percent: 40 };
  test('forward-compatible mode accepts members of unknown type intact; spec-exact rejects them at type', () => {
    expect(isStreamingEvent(vendorEvent)).toBe(false);
    expect(validateStreamingEvent(vendorEvent)).toMatchObject({ success: false, issues: [{ path: ['type'] }] });
    const result = forward.validateStreamingEvent(vendorEvent);
    expect(result.success && result.data).toBe(vendorEvent);
    // The tree-shakable entry point (`@openresponses/types/validate/forward`) holds the same functions.
    expect(forwardEntry.isStreamingEvent).toBe(forward.isStreamingEvent);
    const value = response();
    at(value, 'output').push({ type: 'acme:search_call', id: 'x' });
    expect(isResponseResource(value)).toBe(false);
    expect(forward.isResponseResource(value)).toBe(true);
  });
  test('a known type with an invalid body fails in forward mode too', () => {
    expect(forward.isStreamingEvent({ type: 'response.output_text.delta', sequence_number: 1 })).toBe(false);
  });
  test('disallowed fields must be absent', () => {
    // `stream` is disallowed in the WebSocket create body when the spec marks it so; any marked field behaves alike.
    expect(validateCreateResponseBody({ model: 'm', input: 'hi' }).success).toBe(true);
    expect(validateUsage({ ...usage, total_tokens: '42' })).toMatchObject({
      success: false,
      issues: [{ path: ['total_tokens'] }],
    });
  });
  test('versions holds every spec version in both modes; the root follows the latest', () => {
    expect(Object.keys(versions)).toEqual([...SPEC_VERSIONS]);
    expect(SPEC_VERSION).toBe(LATEST_SPEC_VERSION);
    for (const version of SPEC_VERSIONS) {
      expect(versions[version].exact.isUsage(usage)).toBe(true);
      expect(versions[version].forward.isStreamingEvent(vendorEvent)).toBe(true);
    }
  });
});

test('the generated code has no eval, no new Function and imports only its runtime', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/generated/validate');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(4);
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    expect(text).not.toMatch(/\beval\(|new Function/);
    for (const [, specifier] of text.matchAll(/from '([^']+)'/g)) expect(specifier, file).toMatch(/^\.\.?\//);
  }
});

test('validate/by-version: the tables of each schema hold the validator of every version, in both modes and spec-exact only, and nothing else', () => {
  const tables = byVersion as unknown as Record<string, Record<string, Record<'exact' | 'forward', unknown>>>;
  const exactTables = byVersion as unknown as Record<string, Record<string, unknown>>;
  const expected = new Set<string>();
  for (const [version, modes] of Object.entries(versions))
    for (const mode of ['exact', 'forward'] as const)
      for (const [name, validator] of Object.entries(modes[mode])) {
        if (!name.startsWith('validate')) continue;
        expected.add(`${name}ByVersion`);
        expect(tables[`${name}ByVersion`]?.[version]?.[mode], `${name} ${version} ${mode}`).toBe(validator);
        if (mode === 'exact') {
          expected.add(`${name}ExactByVersion`);
          expect(exactTables[`${name}ExactByVersion`]?.[version], `${name} ${version} exact only`).toBe(validator);
        }
      }
  expect(new Set(Object.keys(tables))).toEqual(expected);
  // The spec-exact tables hold validators only, one per version: no forward-compatible one hides in them.
  for (const [name, table] of Object.entries(exactTables))
    if (name.endsWith('ExactByVersion'))
      for (const [version, validator] of Object.entries(table))
        expect(validator, `${name} ${version}`).toBe(
          (versions as unknown as Record<string, { exact: Record<string, unknown> }>)[version]!.exact[
            name.replace(/ExactByVersion$/, '')
          ],
        );
  // A version only where it defines the schema: CompactResource came with the second version.
  const compactVersions = Object.keys(tables.validateCompactResourceByVersion!);
  expect(compactVersions.length).toBeLessThan(Object.keys(versions).length);
});
