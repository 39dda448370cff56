// Parsing is lossless: unknown and vendor fields survive parse and re-serialisation, for every
// generated valid sample of every schema, in both modes.
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { validate, versions } from '../src/index.js';
import { buildCorpus } from './samples.js';
import { loadSpecDocuments } from './spec-documents.js';

const documents = await loadSpecDocuments();

/** Adds vendor fields at every object level of a value. */
function withVendorFields(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => withVendorFields(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = { 'acme:note': `level ${depth}` };
    for (const [k, v] of Object.entries(value)) out[k] = withVendorFields(v, depth + 1);
    out.zz_newer_spec_field = { added: [depth, null, 'x'] };
    return out;
  }
  return value;
}

describe.each(documents)('spec $version', ({ version, analysis }) => {
  for (const mode of ['exact', 'forward'] as const) {
    test(`${mode}: parse keeps every field; validate returns the input itself`, () => {
      const schemas = versions[version as keyof typeof versions][mode] as unknown as Record<string, z.ZodType>;
      let checked = 0;
      for (const sample of buildCorpus(analysis, {
        seed: 7,
        perSchema: 4,
        mutantsPerSample: 0,
        forward: mode === 'forward',
      })) {
        const schema = schemas[`${sample.schema}Schema`]!;
        const value = withVendorFields(sample.value);
        const parsed = schema.safeParse(value);
        if (!parsed.success) continue; // vendor keys inside maps can exceed maxProperties; such samples are invalid, not lossy
        checked++;
        expect(parsed.data, `${sample.schema} ${sample.label}`).toEqual(value);
        const result = validate(schema, value);
        expect(result.success && JSON.stringify(result.data)).toBe(JSON.stringify(value));
      }
      expect(checked).toBeGreaterThan(analysis.model.schemas.length);
    });
  }
});

test('forward mode keeps unknown items, content and events intact; exact mode rejects them', () => {
  const { exact, forward } = versions['2026-04-24'];
  const vendorItem = {
    type: 'acme:search_result',
    id: 'sr_1',
    status: 'completed',
    hits: [{ url: 'https://example.test', score: 0.9 }],
  };
  const response = {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    completed_at: 2,
    status: 'completed',
    incomplete_details: null,
    model: 'm',
    previous_response_id: null,
    instructions: null,
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
    usage: null,
    max_output_tokens: null,
    max_tool_calls: null,
    store: true,
    background: false,
    service_tier: 'default',
    metadata: {},
    safety_identifier: null,
    prompt_cache_key: null,
    output: [vendorItem],
  };
  expect(exact.ResponseResourceSchema.safeParse(response).success).toBe(false);
  const parsed = validate(forward.ResponseResourceSchema, response);
  expect(parsed.success).toBe(true);
  expect(parsed.success && parsed.data.output[0]).toBe(vendorItem);
  expect(forward.ResponseResourceSchema.parse(response).output[0]).toEqual(vendorItem);

  const vendorEvent = { type: 'acme:trace_event', sequence_number: 3, span: { name: 'tool' } };
  expect(exact.StreamingEventSchema.safeParse(vendorEvent).success).toBe(false);
  expect(forward.StreamingEventSchema.parse(vendorEvent)).toEqual(vendorEvent);
  // A known type with a broken body is not waved through as "unknown".
  expect(
    forward.StreamingEventSchema.safeParse({ type: 'response.output_text.delta', sequence_number: 1 }).success,
  ).toBe(false);
});

test('validation issues name the offending path', () => {
  const { exact } = versions['2026-04-24'];
  const result = validate(exact.CreateResponseBodySchema, {
    model: 'm',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 42 }] }],
  });
  expect(result.success).toBe(false);
  expect(!result.success && result.issues[0]!.path).toBe('input[0].content[0].text');
  const missingType = validate(exact.StreamingEventSchema, { sequence_number: 1, delta: 'x' });
  expect(missingType.success).toBe(false);
  expect(!missingType.success && missingType.issues[0]!.path).toBe('type');
});

test('isUnknownMember tells unknown members of an open union from known ones, and refuses closed schemas', async () => {
  const { isUnknownMember, forward, UsageSchema } = await import('../src/index.js');
  const mini = await import('../src/generated/mini/index.gen.js');
  for (const union of [forward.ItemFieldSchema, mini.forward.ItemFieldSchema]) {
    expect(isUnknownMember(union, { type: 'message' })).toBe(false);
    expect(isUnknownMember(union, { type: 'acme:thing' })).toBe(true);
  }
  expect(() => isUnknownMember(UsageSchema, { type: 'x' })).toThrow(/not a forward-compatible/);
});

test('every classic and mini schema is a Standard Schema (v1) validator that agrees with validate', async () => {
  const classic = await import('../src/index.js');
  const mini = await import('../src/generated/mini/index.gen.js');
  const usage = {
    input_tokens: 1,
    output_tokens: 2,
    total_tokens: 3,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  for (const module of [classic, classic.forward, mini, mini.forward]) {
    const schemas = Object.entries(module).filter(([name]) => name.endsWith('Schema'));
    expect(schemas.length).toBeGreaterThan(100);
    for (const [name, schema] of schemas) {
      const standard = (schema as { '~standard'?: { version: number; vendor: string; validate: unknown } })[
        '~standard'
      ];
      expect(standard?.version, name).toBe(1);
      expect(typeof standard?.validate, name).toBe('function');
    }
    const standard = (
      module.UsageSchema as unknown as { '~standard': { validate: (v: unknown) => { issues?: unknown[] } } }
    )['~standard'];
    expect(standard.validate(usage).issues).toBeUndefined();
    expect(standard.validate({ ...usage, input_tokens: 'x' }).issues?.length).toBeGreaterThan(0);
  }
});
