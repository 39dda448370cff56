import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** One spec version of `openapi/manifest.json`. */
export interface ManifestEntry {
  /** The spec version (its date, `YYYY-MM-DD`). */
  version: string;
  /** Where `spec:sync` downloads it from. */
  url: string;
  /** The sha256 the document must have. */
  sha256: string;
}

/** `openapi/manifest.json`: the spec versions generated side by side. */
export interface SpecManifest {
  /** The version the root exports follow. */
  latest: string;
  /** Every version, oldest first. */
  versions: ManifestEntry[];
}

/** Reads and checks `openapi/manifest.json` under `repoRoot`. */
export async function readManifest(repoRoot: string): Promise<SpecManifest> {
  const file = path.join(repoRoot, 'openapi', 'manifest.json');
  const manifest = JSON.parse(await readFile(file, 'utf8')) as SpecManifest;
  if (!Array.isArray(manifest.versions) || manifest.versions.length === 0)
    throw new Error(`${file}: "versions" must list at least one spec version`);
  for (const entry of manifest.versions) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(entry.version))
      throw new Error(`${file}: version "${entry.version}" is not a date (YYYY-MM-DD)`);
    if (!/^[0-9a-f]{64}$/.test(entry.sha256)) throw new Error(`${file}: version ${entry.version} has no valid sha256`);
  }
  if (!manifest.versions.some((v) => v.version === manifest.latest))
    throw new Error(`${file}: latest "${manifest.latest}" is not a listed version`);
  return manifest;
}

/** Where a synced document lives (gitignored). */
export function syncedDocumentPath(repoRoot: string, version: string): string {
  return path.join(repoRoot, 'openapi', 'documents', version, 'openapi.json');
}
