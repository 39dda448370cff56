/**
 * Zod 4 schemas of every Open Responses schema for the latest spec version, spec-exact (`forward` for
 * forward-compatible), with `validate` and `versions` to pick a version at run time. `/mini` has the same in
 * zod mini, `/<version>` pins one version.
 *
 * @packageDocumentation
 */
export * from './generated/latest.gen.js';
export * from './generated/versions.gen.js';
export { formatPath } from './runtime/validate.js';
export { openUnion, type OpaqueMemberSchema } from './runtime/checks.js';
