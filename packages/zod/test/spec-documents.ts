// The synced spec documents (npm run spec:sync) and their intermediate models, for tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelAnalysis, readManifest, readOpenApi, syncedDocumentPath } from '@openresponses/codegen';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface SpecDocument {
  version: string;
  document: Record<string, unknown>;
  analysis: ModelAnalysis;
}

export async function loadSpecDocuments(): Promise<SpecDocument[]> {
  const manifest = await readManifest(repoRoot);
  return manifest.versions.map((entry) => {
    const document = JSON.parse(readFileSync(syncedDocumentPath(repoRoot, entry.version), 'utf8')) as Record<
      string,
      unknown
    >;
    return {
      version: entry.version,
      document,
      analysis: new ModelAnalysis(readOpenApi(document, { version: entry.version, sha256: entry.sha256 })),
    };
  });
}
