export * from './generated/latest.gen.js';
export * from './generated/versions.gen.js';
export { formatPath } from './runtime/validate.js';
export { openUnion, type OpaqueMemberSchema } from './runtime/checks.js';
