import { jsonSchemaTarget } from './json-schema.js';
import { standaloneTarget } from './standalone.js';
import type { GeneratorTarget } from './target.js';
import { typesTarget } from './types.js';
import { zodMiniTarget, zodTarget } from './zod.js';

export type { GeneratedFiles, GeneratorTarget, IndexContext, VersionContext } from './target.js';

/** Every output target, in the order they are generated. Adding a target: one module, one line here. */
export const TARGETS: readonly GeneratorTarget[] = [
  typesTarget,
  zodTarget,
  zodMiniTarget,
  jsonSchemaTarget,
  standaloneTarget,
];
