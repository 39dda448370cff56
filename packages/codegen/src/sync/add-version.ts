import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readOpenApi } from '../model/read-openapi.js';
import { type ManifestEntry, readManifest, type SpecManifest, syncedDocumentPath } from './manifest.js';
import { sha256Of } from './sync.js';

/** What `addSpecVersion` takes. */
export interface AddSpecVersionOptions {
  /** The repository root (where `openapi/manifest.json` is). */
  repoRoot: string;
  /** The new version's date (`YYYY-MM-DD`). */
  version: string;
  /** A file path or an http(s) URL of the OpenAPI 3.1 document (JSON). */
  source: string;
  /** The sha256 the document must have (for example the one published with it). */
  sha256?: string;
  /** Where the document will be downloaded from by `spec:sync` (default: the source when it is a URL, else the URL pattern of the newest listed version). */
  url?: string;
  /** The `../shared/openapi` folder: a copy of this version there must be the same document. */
  localSource?: string;
  /** The fetch used to download `source` (default: the global one). */
  fetch?: typeof fetch;
}

/** What `addSpecVersion` did. */
export interface AddedSpecVersion {
  /** The manifest entry added. */
  entry: ManifestEntry;
  /** The version the new one is compared with: the newest one older than it (undefined when it is the oldest). */
  previous?: string;
  /** Whether `latest` moved to the new version. */
  movedLatest: boolean;
  /** Puts the manifest and the synced documents back as they were. */
  undo(): Promise<void>;
}

/** A spec document that cannot be added; nothing was changed. */
export class SpecAddError extends Error {
  /** `'SpecAddError'`. */
  override name = 'SpecAddError';
}

/**
 * Validates a new spec document and adds it: the document into `openapi/documents/<version>/`, the version into
 * `openapi/manifest.json` (and `latest` when it is newer). Every check runs before anything is written.
 */
export async function addSpecVersion(options: AddSpecVersionOptions): Promise<AddedSpecVersion> {
  const { repoRoot, version, source } = options;
  const manifest = await readManifest(repoRoot);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(version) || Number.isNaN(Date.parse(version)))
    throw new SpecAddError(`version "${version}" is not a date (YYYY-MM-DD), as spec versions are`);
  if (manifest.versions.some((v) => v.version === version))
    throw new SpecAddError(`spec ${version} is already in openapi/manifest.json; nothing was changed`);

  const bytes = await readSource(source, options.fetch ?? globalThis.fetch);
  const sha256 = sha256Of(bytes);
  if (options.sha256 && options.sha256.toLowerCase() !== sha256)
    throw new SpecAddError(
      `sha256 mismatch for ${source}\n  expected ${options.sha256}\n  actual   ${sha256}\nNothing was changed.`,
    );
  if (options.localSource) {
    const shared = path.join(options.localSource, version, 'openapi.json');
    const existing = await readFile(shared).catch(() => undefined);
    if (existing && sha256Of(existing) !== sha256)
      throw new SpecAddError(
        `sha256 mismatch: ${shared} holds a different document for ${version}\n  there    ${sha256Of(existing)}\n  ${source} ${sha256}\nspec:sync would use that copy; nothing was changed.`,
      );
  }
  validateOpenApi31(bytes, source, version, sha256);

  const url = options.url ?? (/^https?:\/\//.test(source) ? source : conventionalUrl(manifest, version));
  const entry: ManifestEntry = { version, url, sha256 };
  const versions = [...manifest.versions, entry].sort((a, b) => a.version.localeCompare(b.version));
  const movedLatest = version > manifest.latest;
  const updated: SpecManifest = { ...manifest, latest: movedLatest ? version : manifest.latest, versions };

  const manifestFile = path.join(repoRoot, 'openapi', 'manifest.json');
  const manifestBefore = await readFile(manifestFile);
  const documentFile = syncedDocumentPath(repoRoot, version);
  await mkdir(path.dirname(documentFile), { recursive: true });
  await writeAtomically(documentFile, bytes);
  await writeAtomically(manifestFile, `${JSON.stringify(updated, null, 2)}\n`);
  return {
    entry,
    previous: versions
      .map((v) => v.version)
      .filter((v) => v < version)
      .at(-1),
    movedLatest,
    undo: async () => {
      await writeAtomically(manifestFile, manifestBefore);
      await rm(path.dirname(documentFile), { recursive: true, force: true });
    },
  };
}

async function readSource(source: string, fetchImpl: typeof fetch): Promise<Uint8Array> {
  if (/^https?:\/\//.test(source)) {
    let response: Response;
    try {
      response = await fetchImpl(source);
    } catch (cause) {
      throw new SpecAddError(`cannot download ${source}: ${(cause as Error).message}`, { cause });
    }
    if (!response.ok) throw new SpecAddError(`${source} answered HTTP ${response.status}; nothing was changed`);
    return new Uint8Array(await response.arrayBuffer());
  }
  try {
    return await readFile(source);
  } catch (cause) {
    throw new SpecAddError(`cannot read ${source}: ${(cause as Error).message}`, { cause });
  }
}

function validateOpenApi31(bytes: Uint8Array, source: string, version: string, sha256: string): void {
  let document: { openapi?: unknown; paths?: unknown; components?: { schemas?: unknown } };
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (cause) {
    throw new SpecAddError(`${source} is not a JSON document: ${(cause as Error).message}`, { cause });
  }
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(document)) throw new SpecAddError(`${source} is not an OpenAPI document (not a JSON object)`);
  if (typeof document.openapi !== 'string' || !/^3\.1\.\d+$/.test(document.openapi))
    throw new SpecAddError(
      `${source} is not an OpenAPI 3.1 document: "openapi" is ${JSON.stringify(document.openapi ?? null)}, expected 3.1.x`,
    );
  if (!isObject(document.paths)) throw new SpecAddError(`${source} has no "paths" object`);
  if (!isObject(document.components?.schemas)) throw new SpecAddError(`${source} has no "components.schemas" object`);
  try {
    readOpenApi(document, { version, sha256 });
  } catch (cause) {
    throw new SpecAddError(`${source} cannot be generated from: ${(cause as Error).message}`, { cause });
  }
}

/** The URL of the newest listed version with its version replaced: where the project publishes its documents. */
function conventionalUrl(manifest: SpecManifest, version: string): string {
  const newest = manifest.versions.reduce((a, b) => (b.version > a.version ? b : a));
  if (!newest.url.includes(newest.version))
    throw new SpecAddError(`pass --url: the URL of ${newest.version} does not show where ${version} will be published`);
  return newest.url.replaceAll(newest.version, version);
}

async function writeAtomically(file: string, data: Uint8Array | string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, file);
}
