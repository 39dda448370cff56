// npm run spec:diff -- <from> <to> [--changeset] — list added, removed and changed schemas and fields
// between two synced spec versions, each marked breaking or not; --changeset writes the matching changeset.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { changesetFor, diffSpecs, readManifest, readOpenApi, syncedDocumentPath } from '@openresponses/codegen';
import { repoRoot } from './repo-root.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const manifest = await readManifest(repoRoot);
const [from = manifest.versions.at(-2)?.version, to = manifest.latest] = args;
if (!from || !to) {
  console.error('usage: npm run spec:diff -- <from-version> <to-version> [--changeset]');
  process.exit(2);
}
const load = async (version: string) => {
  const entry = manifest.versions.find((v) => v.version === version);
  if (!entry) throw new Error(`${version} is not in openapi/manifest.json`);
  const document = JSON.parse(await readFile(syncedDocumentPath(repoRoot, version), 'utf8'));
  return readOpenApi(document, { version, sha256: entry.sha256 });
};
const changes = diffSpecs(await load(from), await load(to));
console.log(`${from} -> ${to}: ${changes.length} changes, ${changes.filter((c) => c.breaking).length} breaking`);
for (const c of changes)
  console.log(`${c.breaking ? 'BREAKING ' : '         '} ${c.kind.padEnd(20)} ${c.path}: ${c.detail}`);
if (process.argv.includes('--changeset')) {
  const file = path.join(repoRoot, '.changeset', `spec-${to}.md`);
  await writeFile(file, changesetFor(from, to, changes));
  console.log(`wrote ${path.relative(repoRoot, file)}`);
}
