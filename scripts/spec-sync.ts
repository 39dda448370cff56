// npm run spec:sync — copy (or download) every manifest version into openapi/documents/ and verify its sha256.
import { syncSpecs } from '@openresponses/codegen';
import { repoRoot, sharedOpenApi } from './repo-root.js';

try {
  for (const doc of await syncSpecs({ repoRoot, localSource: sharedOpenApi })) {
    console.log(
      `spec ${doc.version}: ${doc.from === 'cache' ? 'up to date' : `synced from ${doc.from}`} (sha256 ${doc.sha256.slice(0, 12)}…)`,
    );
  }
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
