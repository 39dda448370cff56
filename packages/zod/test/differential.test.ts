// Spec-exact mode accepts exactly what the JSON Schema accepts: every component schema of every spec
// version, on seeded valid samples and mutants, must get the same verdict from each validator target
// (Zod classic, Zod mini, the emitted JSON Schema run by Ajv) and from Ajv on the spec document.
// Forward-compatible mode is held to the same standard against the document with its type-discriminated
// unions opened to unknown `type`s.
import { Validator } from '@cfworker/json-schema';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import type * as core from 'zod/v4/core';
import { validate, versions } from '../src/index.js';
import { createOracle } from './ajv-oracle.js';
import { buildCorpus } from './samples.js';
import { loadSpecDocuments } from './spec-documents.js';

const documents = await loadSpecDocuments();

type Mode = 'exact' | 'forward';
type Verdict = (schemaName: string, value: unknown) => boolean;

/** Each validator target's verdict function for one version and mode. */
const targets: Record<string, (version: string, mode: Mode) => Promise<Verdict>> = {
  'zod classic': async (version, mode) => zodVerdict(versions[version as keyof typeof versions][mode]),
  'zod mini': async (version, mode) => {
    const mini = await import(`../src/generated/mini/${version}/index.gen.ts`);
    return zodVerdict(mode === 'exact' ? mini : mini.forward);
  },
  standalone: async (version, mode) => {
    const entry = await import(`../../types/src/generated/validate/${version}/index.gen.ts`);
    const validators = (mode === 'exact' ? entry : entry.forward) as Record<string, (value: unknown) => unknown>;
    return (name, value) => {
      const verdict = validators[`is${name}`]!(value) as boolean;
      // The reporting path must reach the same verdict as the fast one.
      const result = validators[`validate${name}`]!(value) as { success: boolean; issues?: unknown[] };
      if (result.success !== verdict || (!verdict && result.issues!.length === 0))
        throw new Error(`is${name} and validate${name} disagree on ${JSON.stringify(value).slice(0, 200)}`);
      return verdict;
    };
  },
  'JSON Schema (Ajv)': async (version, mode) => {
    const { jsonSchema } = await import(`../../types/src/generated/json-schema/${version}/index.gen.ts`);
    // Loaded as emitted: plain draft-07, default (strict) Ajv options.
    const ajv = new Ajv();
    const compiled = new Map<string, (value: unknown) => boolean>();
    return (name, value) => {
      let check = compiled.get(name);
      if (!check) compiled.set(name, (check = ajv.compile(jsonSchema(name, mode)) as (value: unknown) => boolean));
      return check(value);
    };
  },
  'JSON Schema (@cfworker/json-schema)': async (version, mode) => {
    const { jsonSchema } = await import(`../../types/src/generated/json-schema/${version}/index.gen.ts`);
    const validators = new Map<string, Validator>();
    return (name, value) => {
      let validator = validators.get(name);
      if (!validator) validators.set(name, (validator = new Validator(jsonSchema(name, mode), '7', true)));
      return validator.validate(value).valid;
    };
  },
};

function zodVerdict(module: object): Verdict {
  const schemas = module as Record<string, core.$ZodType>;
  return (name, value) => {
    const schema = schemas[`${name}Schema`];
    if (!schema) throw new Error(`No Zod schema for ${name}`);
    return validate(schema, value).success;
  };
}

describe.each(documents)('spec $version', ({ version, document, analysis }) => {
  for (const mode of ['exact', 'forward'] as const)
    for (const [target, verdictFor] of Object.entries(targets))
      test(`${target}, ${mode} mode: agrees with Ajv on every sample`, async () => {
        const oracle = createOracle(document, mode);
        const verdict = await verdictFor(version, mode);
        const corpus = buildCorpus(analysis, {
          seed: 20260424,
          perSchema: 12,
          mutantsPerSample: 3,
          forward: mode === 'forward',
        });
        const disagreements: string[] = [];
        let accepted = 0;
        const coveredSchemas = new Set<string>();
        for (const sample of corpus) {
          const pointer = analysis.schema(sample.schema).source;
          const expected = oracle(pointer, sample.value);
          const actual = verdict(sample.schema, sample.value);
          if (expected) accepted++;
          coveredSchemas.add(sample.schema);
          if (expected !== actual && disagreements.length < 10) {
            disagreements.push(
              `${sample.schema} (${sample.label}): Ajv ${expected ? 'accepts' : 'rejects'}, ${target} ${actual ? 'accepts' : 'rejects'}\n  ${JSON.stringify(sample.value).slice(0, 400)}`,
            );
          }
        }
        expect(disagreements, disagreements.join('\n')).toEqual([]);
        // The corpus must exercise both verdicts and every schema, or agreement proves little.
        expect(coveredSchemas.size).toBe(analysis.model.schemas.length);
        expect(accepted).toBeGreaterThan(corpus.length * 0.2);
        expect(corpus.length - accepted).toBeGreaterThan(corpus.length * 0.2);
        console.log(
          `${version} ${target} ${mode}: ${corpus.length} samples, ${accepted} accepted, ${disagreements.length} disagreements`,
        );
      });
});
