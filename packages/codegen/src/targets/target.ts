import type { Project } from 'ts-morph';
import type { ModelAnalysis } from '../model/analysis.js';

/** What a target gets to emit one spec version. */
export interface VersionContext {
  /** The spec version. */
  version: string;
  /** The document's sha256. */
  sha256: string;
  /** The OpenAPI document as read (targets that wrap other tools, like openapi-typescript, need it). */
  document: unknown;
  /** The model of the version, with the questions targets ask of it. */
  analysis: ModelAnalysis;
  /** A shared in-memory ts-morph project for printing modules. */
  project: Project;
  /** Generation options (openapi-typescript on or off). */
  options: GenerateVersionOptions;
}

export interface GenerateVersionOptions {
  /** Run openapi-typescript for the types target's `openapi.gen.ts` (default true; slow, tests skip it). */
  openapiTypescript?: boolean;
}

/** What a target gets to emit its cross-version entry points. */
export interface IndexContext {
  /** Every version, oldest first, with its document's sha256. */
  versions: Array<{
    /** The spec version. */
    version: string;
    /** Its document's sha256. */
    sha256: string;
    /** The names of its schemas. */
    schemaNames: string[];
  }>;
  /** The version the root entry points follow. */
  latest: string;
  /** The do-not-edit header for files generated from the whole manifest. */
  header: string;
}

/** Generated files keyed by path relative to the package's `src/generated/` folder. */
export type GeneratedFiles = Record<string, string>;

/**
 * An output target: turns the model of each spec version into modules of one package. Adding a target
 * is a module implementing this plus one line in `TARGETS` (./index.ts); the generator, the file
 * writer and the generator tests iterate over `TARGETS`.
 */
export interface GeneratorTarget {
  /** Unique name (also the generator tests' snapshot folder). */
  readonly name: string;
  /** The workspace package (folder under `packages/`) whose `src/generated/` receives the files. */
  readonly packageName: string;
  /** One version's files. */
  emitVersion(context: VersionContext): GeneratedFiles | Promise<GeneratedFiles>;
  /** The cross-version files: the latest-version entry point, version tables. */
  emitIndex(context: IndexContext): GeneratedFiles;
}

export const ident = (version: string) => version.replace(/-/g, '_');
