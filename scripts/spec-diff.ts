// npm run spec:diff -- [<from> <to>] [--json] [--changeset]: what changed between two synced spec versions
// (default: the two newest), each change classified by the schema's flow (request, response, both) and marked
// breaking or not. --json prints the changes as data; --changeset writes .changeset/spec-<to>.md.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { changesetFor, diffSpecs, formatSpecChanges, readManifest, readSyncedVersion } from '@openresponses/codegen';
import { repoRoot } from './repo-root.js';

const usage = 'usage: npm run spec:diff -- [<from-version> <to-version>] [--json] [--changeset]';
let args: ReturnType<typeof parseSpecDiffArgs>;
function parseSpecDiffArgs() {
  return parseArgs({
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, changeset: { type: 'boolean', default: false } },
  });
}
try {
  args = parseSpecDiffArgs();
} catch (error) {
  console.error(`spec:diff: ${(error as Error).message}\n${usage}`);
  process.exit(2);
}
const manifest = await readManifest(repoRoot);
const versions = manifest.versions.map((v) => v.version).sort();
const [from = versions.at(-2), to = versions.at(-1)] = args.positionals;
if (!from || !to || args.positionals.length > 2) {
  console.error(usage);
  process.exit(2);
}
try {
  const changes = diffSpecs(await readSyncedVersion(repoRoot, from), await readSyncedVersion(repoRoot, to));
  console.log(
    args.values.json
      ? JSON.stringify(
          changes.map(({ schema, path, change, direction, breaking }) => ({
            schema,
            path,
            change,
            direction,
            breaking,
          })),
          null,
          2,
        )
      : formatSpecChanges(from, to, changes),
  );
  if (args.values.changeset) {
    const file = path.join(repoRoot, '.changeset', `spec-${to}.md`);
    await writeFile(file, changesetFor(from, to, changes));
    console.error(`wrote ${path.relative(repoRoot, file)}`);
  }
} catch (error) {
  console.error(`spec:diff: ${(error as Error).message}`);
  process.exit(1);
}
