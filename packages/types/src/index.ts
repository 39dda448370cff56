/**
 * The TypeScript types of every Open Responses schema for the latest spec version, and the spec versions.
 * Subpaths: `/<version>` pins one version, `/validate` has dependency-free validators, `/json-schema` plain
 * JSON Schema documents.
 *
 * @packageDocumentation
 */
export * from './generated/latest.gen.js';
export * from './generated/versions.gen.js';
