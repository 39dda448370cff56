import { generatedHeader, moduleComment } from '../emit/docs.js';
import { emitZodModule, ZOD_CLASSIC, ZOD_MINI, type ZodFlavour } from '../emit/emit-zod.js';
import { type GeneratorTarget, ident } from './target.js';

/** `@openresponses/zod`: classic Zod schemas per version, both modes, and the run-time version table. */
export const zodTarget: GeneratorTarget = {
  name: 'zod',
  packageName: 'zod',
  emitVersion: (context) => zodVersion(context, ZOD_CLASSIC, '', '../../runtime'),
  emitIndex({ versions, latest, header }) {
    return {
      'latest.gen.ts': `${header}export * from './${latest}/index.gen.js';\n`,
      'versions.gen.ts': `${header}${versionTable(versions)}`,
    };
  },
};

/**
 * `@openresponses/zod/mini` and `@openresponses/zod/mini/<version>`: the same schemas in zod mini, whose
 * functions tree-shake (a program bundles only the schemas it imports; an unused `versions` table is
 * dropped too, since it is a plain object literal).
 */
export const zodMiniTarget: GeneratorTarget = {
  name: 'zod-mini',
  packageName: 'zod',
  emitVersion: (context) => zodVersion(context, ZOD_MINI, 'mini/', '../../../runtime'),
  emitIndex({ versions, latest, header }) {
    return {
      'mini/index.gen.ts': [
        header +
          moduleComment(
            "The latest spec version's schemas in zod mini, whose functions tree-shake (a bundle keeps only the schemas it imports), with `validate`; `versions` holds every version's. `@openresponses/zod/mini/<version>` pins one version.",
          ).trimEnd(),
        `export * from './${latest}/index.gen.js';`,
        versionTable(versions),
      ].join('\n'),
    };
  },
};

/** The run-time table of every version's schemas, both modes (imports, re-exported constants, `versions`). */
function versionTable(versions: Array<{ version: string }>): string {
  return [
    `import type { SpecVersion } from '@openresponses/types';`,
    ...versions.flatMap((v) => [
      `import * as exact_${ident(v.version)} from './${v.version}/exact.gen.js';`,
      `import * as forward_${ident(v.version)} from './${v.version}/forward.gen.js';`,
    ]),
    `export { SPEC_VERSIONS, LATEST_SPEC_VERSION, type SpecVersion } from '@openresponses/types';`,
    ``,
    `/** Every version's schemas, in both modes: pick one at run time (e.g. from an \`OpenResponses-Version\` header). */`,
    `export const versions = {`,
    ...versions.map(
      (v) =>
        `  /** Spec version ${v.version}. */\n  ${JSON.stringify(v.version)}: {\n    /** The spec-exact schemas. */\n    exact: exact_${ident(v.version)},\n    /** The forward-compatible schemas. */\n    forward: forward_${ident(v.version)},\n  },`,
    ),
    `} as const satisfies Record<SpecVersion, { exact: object; forward: object }>;`,
    '',
  ].join('\n');
}

function zodVersion(
  { version: v, sha256, analysis, project }: Parameters<GeneratorTarget['emitVersion']>[0],
  flavour: ZodFlavour,
  folder: string,
  runtime: string,
): Record<string, string> {
  const types = `@openresponses/types/${v}`;
  const file = (name: string) => `${folder}${v}/${name}`;
  return {
    [file('exact.gen.ts')]: emitZodModule(project, analysis, 'exact', `/${file('exact.gen.ts')}`, types, flavour),
    [file('forward.gen.ts')]: emitZodModule(project, analysis, 'forward', `/${file('forward.gen.ts')}`, types, flavour),
    [file('index.gen.ts')]: [
      generatedHeader(v, sha256) +
        moduleComment(
          `${flavour === ZOD_MINI ? 'Zod mini' : 'Zod'} schemas of spec version ${v} for every named schema, spec-exact, with \`validate\`; \`forward\` holds the forward-compatible ones.`,
        ),
      `export * from './exact.gen.js';`,
      `/** The same schemas in forward-compatible mode: open unions also accept members of unknown \`type\`, kept intact. */`,
      `export * as forward from './forward.gen.js';`,
      `export { validate, type ValidationResult, type ValidationIssue } from '${runtime}/validate.js';`,
      `export { isUnknownMember } from '${runtime}/open-unions.js';`,
      `/** The spec version these schemas were generated from. */`,
      `export const SPEC_VERSION = ${JSON.stringify(v)};`,
      '',
    ].join('\n'),
  };
}
