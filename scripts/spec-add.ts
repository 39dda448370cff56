// npm run spec:add -- <version> <file-or-url> [--sha256 <hex>] [--url <download-url>]: add a published spec
// document. Validates it (OpenAPI 3.1 our generator can read, a new version, the expected sha256) before
// changing anything; then adds it to openapi/manifest.json (moving `latest` when it is newer), regenerates,
// prints the diff against the previous version and writes .changeset/spec-<version>.md.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  addSpecVersion,
  changesetFor,
  diffSpecs,
  formatSpecChanges,
  generateAll,
  readSyncedVersion,
  SpecAddError,
  syncSpecs,
} from '@openresponses/codegen';
import { repoRoot, sharedOpenApi } from './repo-root.js';

const usage = 'usage: npm run spec:add -- <version> <file-or-url> [--sha256 <hex>] [--url <download-url>]';
let args: { values: { sha256?: string; url?: string }; positionals: string[] };
try {
  args = parseArgs({ allowPositionals: true, options: { sha256: { type: 'string' }, url: { type: 'string' } } });
} catch (error) {
  console.error(`spec:add: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}
const [version, source] = args.positionals;
if (!version || !source || args.positionals.length > 2) {
  console.error(usage);
  process.exit(2);
}

let added: Awaited<ReturnType<typeof addSpecVersion>>;
try {
  // Every listed version must be in place and verified before the new one is compared with them.
  await syncSpecs({ repoRoot, localSource: sharedOpenApi });
  added = await addSpecVersion({ repoRoot, version, source, localSource: sharedOpenApi, ...args.values });
} catch (error) {
  console.error(`spec:add: ${(error as Error).message}`);
  process.exit(error instanceof SpecAddError ? 2 : 1);
}
console.log(
  `spec:add: ${version} added (sha256 ${added.entry.sha256}, download URL ${added.entry.url})${added.movedLatest ? `; latest is now ${version}` : ''}`,
);
try {
  const report = await generateAll({ repoRoot });
  console.log(`spec:add: generated ${report.versions.join(', ')} (${report.written.length} files written)`);
} catch (error) {
  await added.undo();
  await generateAll({ repoRoot }).catch(() => undefined);
  console.error(`spec:add: generation failed, ${version} was removed again: ${(error as Error).message}`);
  process.exit(1);
}
if (added.previous) {
  const changes = diffSpecs(
    await readSyncedVersion(repoRoot, added.previous),
    await readSyncedVersion(repoRoot, version),
  );
  console.log(formatSpecChanges(added.previous, version, changes));
  const file = path.join(repoRoot, '.changeset', `spec-${version}.md`);
  await writeFile(file, changesetFor(added.previous, version, changes, { movesLatest: added.movedLatest }));
  console.log(`spec:add: wrote ${path.relative(repoRoot, file)}`);
}
