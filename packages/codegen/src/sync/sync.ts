import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ManifestEntry, readManifest, syncedDocumentPath } from './manifest.js';

export interface SyncOptions {
  repoRoot: string;
  /** Folder holding `<version>/openapi.json` copies (the `shared/openapi` folder beside the project). */
  localSource?: string;
  /** Used when no local copy exists. */
  fetch?: typeof fetch;
}

/** One version `syncSpecs` put in `openapi/documents/`. */
export interface SyncedDocument {
  /** The spec version. */
  version: string;
  /** The document's sha256 (verified). */
  sha256: string;
  /** Where it was written. */
  file: string;
  /** Where it came from: the local `../shared/openapi/` copy, a download, or already in place. */
  from: 'local' | 'download' | 'cache';
}

/** A document that could not be synced: missing, unreachable, or not the sha256 the manifest names. */
export class SpecSyncError extends Error {
  /** `'SpecSyncError'`. */
  override name = 'SpecSyncError';
}

/** The sha256 of `bytes`, in hex. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Copies (or downloads) every manifest version into openapi/documents/, verifying each sha256. */
export async function syncSpecs(options: SyncOptions): Promise<SyncedDocument[]> {
  const manifest = await readManifest(options.repoRoot);
  const results: SyncedDocument[] = [];
  for (const entry of manifest.versions) results.push(await syncOne(entry, options));
  return results;
}

async function syncOne(entry: ManifestEntry, options: SyncOptions): Promise<SyncedDocument> {
  const target = syncedDocumentPath(options.repoRoot, entry.version);
  const existing = await readFile(target).catch(() => undefined);
  if (existing && sha256Of(existing) === entry.sha256)
    return { version: entry.version, sha256: entry.sha256, file: target, from: 'cache' };

  let bytes: Uint8Array | undefined;
  let from: SyncedDocument['from'] = 'local';
  let origin = '';
  if (options.localSource) {
    origin = path.join(options.localSource, entry.version, 'openapi.json');
    bytes = await readFile(origin).catch(() => undefined);
  }
  if (!bytes) {
    from = 'download';
    origin = entry.url;
    const fetchImpl = options.fetch ?? globalThis.fetch;
    let response: Response;
    try {
      response = await fetchImpl(entry.url);
    } catch (cause) {
      throw new SpecSyncError(
        `Spec ${entry.version}: no local copy${options.localSource ? ` in ${options.localSource}` : ''} and the download of ${entry.url} failed: ${(cause as Error).message}`,
      );
    }
    if (!response.ok)
      throw new SpecSyncError(`Spec ${entry.version}: no local copy and ${entry.url} answered HTTP ${response.status}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  }
  const actual = sha256Of(bytes);
  if (actual !== entry.sha256) {
    throw new SpecSyncError(
      `Spec ${entry.version}: sha256 mismatch for ${origin}\n  expected ${entry.sha256}\n  actual   ${actual}\nUpdate openapi/manifest.json only if this document is the intended new input.`,
    );
  }
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, target);
  return { version: entry.version, sha256: actual, file: target, from };
}
