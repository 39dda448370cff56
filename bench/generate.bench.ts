// Generator speed: both spec versions from their synced documents, in memory (no file writes).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateVersion, readManifest, syncedDocumentPath } from '@openresponses/codegen';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function run(): Promise<void> {
  const manifest = await readManifest(root);
  const inputs = manifest.versions.map((v) => ({
    version: v.version,
    sha256: v.sha256,
    document: JSON.parse(readFileSync(syncedDocumentPath(root, v.version), 'utf8')),
  }));
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await Promise.all(inputs.map((input) => generateVersion(input)));
    times.push(performance.now() - start);
  }
  console.log(`\nGenerating ${inputs.map((i) => i.version).join(' and ')} (types, zod, openapi-typescript; in memory)`);
  console.log(
    `first run (cold): ${Math.round(times[0]!)} ms   warm: ${Math.round(Math.min(...times.slice(1)))} ms   (target: < 3,000 ms)`,
  );
}
