/**
 * The generator: reads the Open Responses OpenAPI documents and emits `@openresponses/types` and
 * `@openresponses/zod` per spec version; spec sync and spec diff.
 *
 * @packageDocumentation
 */
export {
  generateAll,
  generateVersion,
  generateVersionIndex,
  type DocumentInput,
  type GenerateReport,
  type VersionOutput,
} from './generate.js';
export { readOpenApi, STREAMING_EVENT_UNION } from './model/read-openapi.js';
export { ModelAnalysis, type ValidationMode, type UnionShape } from './model/analysis.js';
export {
  TARGETS,
  type GeneratorTarget,
  type GeneratedFiles,
  type VersionContext,
  type IndexContext,
} from './targets/index.js';
export { UnsupportedSchemaError, type SchemaNode, type SpecModel, type NamedSchema } from './model/schema-model.js';
export { syncSpecs, SpecSyncError, sha256Of, type SyncedDocument } from './sync/sync.js';
export { addSpecVersion, SpecAddError, type AddSpecVersionOptions, type AddedSpecVersion } from './sync/add-version.js';
export { readManifest, syncedDocumentPath, type SpecManifest, type ManifestEntry } from './sync/manifest.js';
export {
  diffSpecs,
  changesetFor,
  formatSpecChanges,
  GENERATED_PACKAGES,
  readSyncedVersion,
  type DiffInput,
  type SpecChange,
  type SpecChangeKind,
} from './diff/spec-diff.js';
export { schemaFlows, type SchemaFlow } from './diff/schema-flow.js';
