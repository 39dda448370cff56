import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, whatever the working directory the script was started from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** `../shared/openapi` beside the project: the local source of the published spec documents. */
export const sharedOpenApi = path.resolve(repoRoot, '..', 'shared', 'openapi');
