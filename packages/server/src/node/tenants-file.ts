import { readFileSync } from 'node:fs';
import { resolveTenants, type TenantDirectory, TenantsConfigError } from '../tenants.js';

/**
 * Reads and checks a tenants file (JSON; see `docs/run-many-tenants.md`), resolving `env` keys from `env`.
 * Throws a `TenantsConfigError` whose message is one line naming the file and the first problem.
 */
export async function readTenantsFile(
  path: string,
  env: Record<string, string | undefined> = {},
): Promise<TenantDirectory> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new TenantsConfigError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (error) {
    throw new TenantsConfigError(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    return await resolveTenants(file, env);
  } catch (error) {
    if (error instanceof TenantsConfigError)
      throw new TenantsConfigError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}
