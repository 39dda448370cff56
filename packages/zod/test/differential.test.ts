// Spec-exact mode accepts exactly what the JSON Schema accepts: every component schema of every spec
// version, on seeded valid samples and mutants, must get the same verdict from Zod and from Ajv.
// Forward-compatible mode is held to the same standard against the document with its type-discriminated
// unions opened to unknown `type`s.
import { describe, expect, test } from 'vitest';
import type { z } from 'zod';
import { versions } from '../src/index.js';
import { createOracle } from './ajv-oracle.js';
import { buildCorpus } from './samples.js';
import { loadSpecDocuments } from './spec-documents.js';

const documents = await loadSpecDocuments();

describe.each(documents)('spec $version', ({ version, document, analysis }) => {
  for (const mode of ['exact', 'forward'] as const) {
    test(`${mode} mode agrees with Ajv on every sample`, () => {
      const oracle = createOracle(document, mode);
      const schemas = versions[version as keyof typeof versions][mode] as unknown as Record<string, z.ZodType>;
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
        const schema = schemas[`${sample.schema}Schema`];
        if (!schema) throw new Error(`No Zod schema for ${sample.schema}`);
        const pointer = analysis.schema(sample.schema).source;
        const expected = oracle(pointer, sample.value);
        const actual = schema.safeParse(sample.value).success;
        if (expected) accepted++;
        coveredSchemas.add(sample.schema);
        if (expected !== actual && disagreements.length < 10) {
          disagreements.push(
            `${sample.schema} (${sample.label}): Ajv ${expected ? 'accepts' : 'rejects'}, Zod ${actual ? 'accepts' : 'rejects'}\n  ${JSON.stringify(sample.value).slice(0, 400)}`,
          );
        }
      }
      expect(disagreements, disagreements.join('\n')).toEqual([]);
      // The corpus must exercise both verdicts and every schema, or agreement proves little.
      expect(coveredSchemas.size).toBe(analysis.model.schemas.length);
      expect(accepted).toBeGreaterThan(corpus.length * 0.2);
      expect(corpus.length - accepted).toBeGreaterThan(corpus.length * 0.2);
    });
  }
});
