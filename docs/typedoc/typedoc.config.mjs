// `npm run docs`: the API reference of every public package's published entry points, into docs/api/
// (gitignored). Every exported symbol must be documented and every link must resolve: validation warnings
// are errors, so the build fails otherwise.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OptionDefaults } from 'typedoc';
import { entryPoints } from './entry-points.mjs';

/** A path beside this file (absolute, so the config reads the same from any working directory). */
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

const pending = JSON.parse(readFileSync(new URL('./not-yet-documented.json', import.meta.url), 'utf8')).names;

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: 'Open Responses TypeScript toolkit',
  entryPoints: entryPoints().map((e) => e.file),
  entryPointStrategy: 'resolve',
  tsconfig: here('./tsconfig.json'),
  out: here('../api'),
  readme: here('./index.md'),
  // The index page's title is index.md's own heading (TypeDoc would print the project name above it too).
  headings: { readme: false },
  // Lists (the modules, a module's members) show each one's first paragraph, not only an explicit `@summary`.
  useFirstParagraphOfCommentAsSummary: true,
  plugin: [here('./plugin.mjs')],
  // openapi-typescript's output (`paths`, `components`) writes its descriptions as `@description`.
  blockTags: [...OptionDefaults.blockTags, '@description'],
  excludePrivate: true,
  excludeInternal: true,
  disableSources: true,
  githubPages: false,
  // Exports allowed to lack a comment: none since issue 37 (the file's list is empty and stays so).
  intentionallyNotDocumented: pending,
  // Every package of ours, not only the root one (TypeDoc's default): a symbol belongs to its nearest package.json.
  packagesRequiringDocumentation: [...new Set(entryPoints().map((e) => e.packageName))],
  validation: { notExported: true, invalidLink: true, notDocumented: true },
  treatValidationWarningsAsErrors: true,
  treatWarningsAsErrors: true,
};
