// npm run generate — sync the spec documents if needed, then write packages/{types,zod}/src/generated/.
import { generateAll, syncSpecs } from '@openresponses/codegen';
import { repoRoot, sharedOpenApi } from './repo-root.js';

const started = performance.now();
try {
  await syncSpecs({ repoRoot, localSource: sharedOpenApi });
  const report = await generateAll({ repoRoot });
  const ms = Math.round(performance.now() - started);
  console.log(
    `generated ${report.versions.join(', ')}: ${report.written.length} written, ${report.unchanged} unchanged, ${report.removed.length} removed in ${ms} ms`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
