export * from './generated/latest.gen.js';
export * from './generated/versions.gen.js';
