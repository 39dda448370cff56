import { generatedHeader, moduleComment } from '../emit/docs.js';
import { emitStandaloneChecks, reportName, testName } from '../emit/emit-standalone.js';
import type { ModelAnalysis, ValidationMode } from '../model/analysis.js';
import { type GeneratorTarget, type IndexContext, ident } from './target.js';

const RUNTIME = '../../../validation-runtime.js';

/**
 * `@openresponses/types/validate` and `@openresponses/types/validate/<version>`: dependency-free validator
 * functions (`is<Name>`, `validate<Name>`) per version and mode, compiled ahead of time (no `eval`, so
 * they run under a strict CSP and in Workers). Each export is a separate function over shared checks,
 * so a bundle keeps only the checks the imported schemas reach.
 */
export const standaloneTarget: GeneratorTarget = {
  name: 'standalone',
  packageName: 'types',
  emitVersion({ version: v, sha256, analysis }) {
    const header = generatedHeader(v, sha256);
    return {
      [`validate/${v}/checks.gen.ts`]: emitStandaloneChecks(analysis, RUNTIME, header),
      [`validate/${v}/exact.gen.ts`]: entryPoints(analysis, 'exact', v, header),
      [`validate/${v}/forward.gen.ts`]: entryPoints(analysis, 'forward', v, header),
      [`validate/${v}/index.gen.ts`]: [
        header +
          moduleComment(
            `Dependency-free validators of spec version ${v}: an \`is<Name>\` type guard and a \`validate<Name>\` (the issues) for every schema, spec-exact; \`forward\` holds the forward-compatible ones.`,
          ),
        `export * from './exact.gen.js';`,
        `/** The same validators in forward-compatible mode: open unions also accept members of unknown \`type\`. */`,
        `export * as forward from './forward.gen.js';`,
        `export type { IssuePath, ValidationIssue, ValidationResult } from '${RUNTIME}';`,
        `/** The spec version these validators were generated from. */`,
        `export const SPEC_VERSION = ${JSON.stringify(v)};`,
        '',
      ].join('\n'),
      // A namespace re-export (\`forward.isX\`) keeps every forward validator in a bundle (esbuild cannot
      // shake a re-exported namespace); this entry point's named exports tree-shake.
      [`validate/${v}/forward/index.gen.ts`]: [
        header,
        `export * from '../forward.gen.js';`,
        `export type { IssuePath, ValidationIssue, ValidationResult } from '../${RUNTIME}';`,
        `/** The spec version these validators were generated from. */`,
        `export const SPEC_VERSION = ${JSON.stringify(v)};`,
        '',
      ].join('\n'),
    };
  },
  emitIndex({ versions, latest, header }) {
    return {
      'validate/index.gen.ts': [
        header +
          moduleComment(
            `Dependency-free validators of the latest spec version: an \`is<Name>\` type guard and a \`validate<Name>\` (the issues) for every schema, spec-exact; \`forward\` holds the forward-compatible ones, \`versions\` every version's. \`@openresponses/types/validate/<version>\` pins one version.`,
          ).trimEnd(),
        `import type { SpecVersion } from '../versions.gen.js';`,
        ...versions.flatMap((v) => [
          `import * as exact_${ident(v.version)} from './${v.version}/exact.gen.js';`,
          `import * as forward_${ident(v.version)} from './${v.version}/forward.gen.js';`,
        ]),
        `export * from './${latest}/index.gen.js';`,
        ``,
        `/** Every version's validators, in both modes: pick one at run time (e.g. from an \`OpenResponses-Version\` header). */`,
        `export const versions = {`,
        ...versions.map(
          (v) =>
            `  /** Spec version ${v.version}. */\n  ${JSON.stringify(v.version)}: {\n    /** The spec-exact validators. */\n    exact: exact_${ident(v.version)},\n    /** The forward-compatible validators. */\n    forward: forward_${ident(v.version)},\n  },`,
        ),
        `} as const satisfies Record<SpecVersion, { exact: object; forward: object }>;`,
        '',
      ].join('\n'),
      'validate/forward/index.gen.ts': `${header}${moduleComment("The latest spec version's forward-compatible validators (open unions also accept members of unknown `type`), as named exports that tree-shake.")}export * from '../${latest}/forward/index.gen.js';\n`,
      'validate/by-version/index.gen.ts': byVersion(versions, header),
    };
  },
};

/**
 * `@openresponses/types/validate/by-version`: for each schema, its `validate<Name>` of every version that
 * defines it in both modes (`validateResponseResourceByVersion[version].forward`), and spec-exact only
 * (`validateResponseResourceExactByVersion[version]`). One table per schema and mode set, so a bundle keeps
 * only the schemas (and modes) it picks, where the `versions` map keeps every validator.
 */
function byVersion(versions: IndexContext['versions'], header: string): string {
  const lines = [
    header +
      moduleComment(
        'For each schema, its validators of every spec version that defines it (`validateResponseResourceByVersion[version].exact`): pick the version at run time, as from an `OpenResponses-Version` header, and a bundle keeps only the schemas it uses.',
      ).trimEnd(),
  ];
  const alias = (name: string, mode: ValidationMode, version: string) => `${name}_${mode}_${ident(version)}`;
  for (const { version, schemaNames } of versions)
    for (const mode of ['exact', 'forward'] as const)
      lines.push(
        `import { ${schemaNames.map((n) => `validate${n} as ${alias(n, mode, version)}`).join(', ')} } from '../${version}/${mode}.gen.js';`,
      );
  const names = [...new Set(versions.flatMap((v) => v.schemaNames))].sort();
  for (const name of names) {
    lines.push(
      '',
      `/** \`validate${name}\` of each spec version that defines it, spec-exact and forward-compatible. */`,
      `export const validate${name}ByVersion = {`,
    );
    for (const { version, schemaNames } of versions)
      if (schemaNames.includes(name))
        lines.push(
          `  /** Spec version ${version}. */`,
          `  ${JSON.stringify(version)}: {`,
          `    /** Spec-exact. */`,
          `    exact: ${alias(name, 'exact', version)},`,
          `    /** Forward-compatible: open unions also accept members of unknown \`type\`. */`,
          `    forward: ${alias(name, 'forward', version)},`,
          `  },`,
        );
    lines.push('};');
    // An object's properties do not tree-shake: a program that checks spec-exact only (the stream checker)
    // would keep every forward validator through the table above.
    lines.push(
      '',
      `/** \`validate${name}\` of each spec version that defines it, spec-exact only (a bundle keeps no forward-compatible validator). */`,
      `export const validate${name}ExactByVersion = {`,
    );
    for (const { version, schemaNames } of versions)
      if (schemaNames.includes(name))
        lines.push(
          `  /** Spec version ${version}. */`,
          `  ${JSON.stringify(version)}: ${alias(name, 'exact', version)},`,
        );
    lines.push('};');
  }
  lines.push('');
  return lines.join('\n');
}

/** `is<Name>` and `validate<Name>` for every named schema, typed by the `types` target's types of that mode. */
function entryPoints(analysis: ModelAnalysis, mode: ValidationMode, version: string, header: string): string {
  const names = analysis.model.schemas.map((s) => s.name);
  const forward = mode === 'forward';
  const lines = [
    header,
    forward
      ? `import type { Forward as T } from '../../${version}/index.gen.js';`
      : `import type * as T from '../../${version}/index.gen.js';`,
    `import { invalid, mode, type ValidationResult } from '${RUNTIME}';`,
    `import { ${names.flatMap((n) => [testName(n), reportName(n)]).join(', ')} } from './checks.gen.js';`,
  ];
  const modeNote = forward ? 'forward-compatible: unknown members of open unions pass intact' : 'spec-exact';
  for (const name of names) {
    const test = testName(name);
    // The valid path is inline here (no shared function calling every schema's test through one call site).
    lines.push(
      '',
      `/** Whether \`value\` is a valid {@link T.${name}} (${modeNote}). Allocates nothing. */`,
      `export const is${name} = (value: unknown): value is T.${name} => ((mode.forward = ${forward}), ${test}(value));`,
      `/** Validates a {@link T.${name}}: the input itself as \`data\`, or the issues, each at the path of the wrong field. */`,
      `export const validate${name} = (value: unknown): ValidationResult<T.${name}> =>`,
      `  ((mode.forward = ${forward}), ${test}(value)) ? { success: true, data: value as T.${name} } : invalid(${reportName(name)}, value);`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
