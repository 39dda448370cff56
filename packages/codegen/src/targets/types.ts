import { ts } from 'ts-morph';
import { generatedHeader, undescribedField } from '../emit/docs.js';
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
      // Loaded here, not with the generator: the tools that import it to sync, add or diff a spec and generate
      // nothing (spec:sync, spec:diff, spec:add's refusals) would load it for nothing, ~1.4 s of CPU a start.
      const { default: openapiTS, astToString } = await import('openapi-typescript');
      const ast = await openapiTS(withoutDiscriminators(structuredClone(document)) as never, {
        silent: true,
        emptyObjectsUnknown: true,
      });
      files[`${v}/openapi.gen.ts`] =
        `${generatedHeader(v, sha256)}// openapi-typescript output, for openapi-fetch style clients.\n\n${documentEveryMember(astToString(ast))}`;
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
        `/** A spec version this package has types for. */`,
        `export type SpecVersion = (typeof SPEC_VERSIONS)[number];`,
        `/** The version the root export follows. */`,
        `export const LATEST_SPEC_VERSION = ${JSON.stringify(latest)} satisfies SpecVersion;`,
        `/** Every version's streaming event types, for code that reads a stream of a known version (the stream checker). */`,
        `export const STREAMING_EVENT_TYPES_BY_VERSION = {`,
        ...versions.map(
          (v) =>
            `  /** The event types of ${v.version}. */\n  ${JSON.stringify(v.version)}: events_${ident(v.version)},`,
        ),
        `} as const satisfies Record<SpecVersion, readonly string[]>;`,
        `/** Every version's named schemas (\`SchemaTypes\`) and openapi-typescript components, for code and tests over all versions. */`,
        `export interface TypesByVersion {`,
        ...versions.map(
          (v) =>
            `  /** Spec version ${v.version}. */\n  ${JSON.stringify(v.version)}: {\n    /** The named types. */\n    schemas: types_${ident(v.version)}.SchemaTypes;\n    /** The forward-compatible named types. */\n    forward: types_${ident(v.version)}.Forward.SchemaTypes;\n    /** openapi-typescript's component schemas. */\n    components: types_${ident(v.version)}.components['schemas'];\n  };`,
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

/**
 * openapi-typescript writes the spec's descriptions as JSDoc; a member the spec does not describe (and its
 * own layout: `parameters`, `responses`, `content`, …) gets the same generated sentence as undescribed
 * fields of the named types, so every exported member is documented. Inserted by position in one pass
 * over the printed text (deterministic: the same input prints the same output).
 */
function documentEveryMember(source: string): string {
  const file = ts.createSourceFile('openapi.gen.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const inserts: Array<{ at: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && !hasJsDoc(source, node)) {
      const name = node.name.text;
      inserts.push({
        at: node.getStart(file),
        text: `/** openapi-typescript's \`${name}\` of the spec document, for openapi-fetch style clients. */\n`,
      });
    }
    if (ts.isPropertySignature(node)) {
      const enumOnly = (ts.getLeadingCommentRanges(source, node.pos) ?? []).find((c) =>
        /^\/\*\*\s*@enum \{[^}]*\}\s*\*\/$/.test(source.slice(c.pos, c.end)),
      );
      if (enumOnly) {
        // `/** @enum {string} */` alone is a tag without text: put the sentence before the tag.
        const name = node.name.getText(file).replace(/^"|"$/g, '');
        inserts.push({ at: enumOnly.pos + 3, text: ` ${undescribedField(name).replace(' field ', ' member ')}` });
      } else if (!hasJsDoc(source, node)) {
        const start = node.getStart(file);
        const lineStart = source.lastIndexOf('\n', start - 1) + 1;
        const indent = source.slice(lineStart, start);
        const name =
          ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isNumericLiteral(node.name)
            ? node.name.text
            : node.name.getText(file);
        const comment = `/** ${undescribedField(name).replace(' field ', ' member ').replace(/\*\//g, '*\\/')} */`;
        inserts.push({ at: start, text: /^\s*$/.test(indent) ? `${comment}\n${indent}` : `${comment} ` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = source;
  for (const { at, text } of inserts.sort((a, b) => b.at - a.at)) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

function hasJsDoc(source: string, node: ts.Node): boolean {
  return (ts.getLeadingCommentRanges(source, node.pos) ?? []).some((c) => source.startsWith('/**', c.pos));
}
