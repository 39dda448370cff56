import openapiTS, { astToString } from 'openapi-typescript';
import { generatedHeader } from '../emit/docs.js';
import { emitTypesIndex, emitTypesModule } from '../emit/emit-types.js';
import { type GeneratorTarget, ident } from './target.js';

/** `@openresponses/types`: named types (exact and Forward), event constants, openapi-typescript's output. */
export const typesTarget: GeneratorTarget = {
  name: 'types',
  packageName: 'types',
  async emitVersion({ version: v, sha256, document, analysis, project, options }) {
    const files: Record<string, string> = {
      [`${v}/schemas.gen.ts`]: emitTypesModule(project, analysis, 'exact', `/types/${v}/schemas.gen.ts`),
      [`${v}/forward.gen.ts`]: emitTypesModule(project, analysis, 'forward', `/types/${v}/forward.gen.ts`),
      [`${v}/index.gen.ts`]: emitTypesIndex(project, analysis, `/types/${v}/index.gen.ts`),
    };
    if (options.openapiTypescript !== false) {
      const ast = await openapiTS(withoutDiscriminators(structuredClone(document)) as never, {
        silent: true,
        emptyObjectsUnknown: true,
      });
      files[`${v}/openapi.gen.ts`] =
        `${generatedHeader(v, sha256)}// openapi-typescript output, for openapi-fetch style clients.\n\n${astToString(ast)}`;
    }
    return files;
  },
  emitIndex({ versions, latest, header }) {
    const list = versions.map((v) => JSON.stringify(v.version)).join(', ');
    return {
      'latest.gen.ts': `${header}export * from './${latest}/index.gen.js';\n`,
      'versions.gen.ts': [
        header.trimEnd(),
        ...versions.map((v) => `import type * as types_${ident(v.version)} from './${v.version}/index.gen.js';`),
        ...versions.map(
          (v) => `import { STREAMING_EVENT_TYPES as events_${ident(v.version)} } from './${v.version}/index.gen.js';`,
        ),
        `/** Every spec version this package has types for, oldest first. */`,
        `export const SPEC_VERSIONS = [${list}] as const;`,
        `export type SpecVersion = (typeof SPEC_VERSIONS)[number];`,
        `/** The version the root export follows. */`,
        `export const LATEST_SPEC_VERSION = ${JSON.stringify(latest)} satisfies SpecVersion;`,
        `/** Every version's streaming event types, for code that reads a stream of a known version (the stream checker). */`,
        `export const STREAMING_EVENT_TYPES_BY_VERSION = {`,
        ...versions.map((v) => `  ${JSON.stringify(v.version)}: events_${ident(v.version)},`),
        `} as const satisfies Record<SpecVersion, readonly string[]>;`,
        `/** Every version's named schemas (\`SchemaTypes\`) and openapi-typescript components, for code and tests over all versions. */`,
        `export interface TypesByVersion {`,
        ...versions.map(
          (v) =>
            `  ${JSON.stringify(v.version)}: { schemas: types_${ident(v.version)}.SchemaTypes; forward: types_${ident(v.version)}.Forward.SchemaTypes; components: types_${ident(v.version)}.components['schemas'] };`,
        ),
        `}`,
        '',
      ].join('\n'),
    };
  },
};

/**
 * openapi-typescript reads a `discriminator` without `mapping` as OpenAPI's implicit mapping and
 * replaces each member's `type` with its schema name (`"ResponseOutputTextDeltaStreamingEvent"`
 * instead of `"response.output_text.delta"`), rewriting the document in place. The discriminator is
 * only a hint (`oneOf` decides what is valid), so its input goes without them.
 */
function withoutDiscriminators(node: unknown): unknown {
  if (Array.isArray(node)) node.forEach(withoutDiscriminators);
  else if (node && typeof node === 'object') {
    delete (node as Record<string, unknown>).discriminator;
    Object.values(node).forEach(withoutDiscriminators);
  }
  return node;
}
