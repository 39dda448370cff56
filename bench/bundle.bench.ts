// Bundle sizes of representative imports of the built packages (run `npm run build` first; `npm run bench`
// does), bundled for the browser with esbuild (minified, tree-shaken) and gzipped, side by side with zod
// alone. Each entry uses what it imports, so nothing is dropped that a real program would keep.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');

interface BundleCase {
  name: string;
  source: string;
  /** Gzip bytes this case must stay under, with the reason in `why`. */
  target?: number;
}

const cases: BundleCase[] = [
  {
    name: 'zod classic alone: one small object',
    source: `import * as z from 'zod/v4'; console.log(z.looseObject({ input_tokens: z.number() }).safeParse(globalThis.x));`,
  },
  {
    name: 'zod mini alone: one small object',
    source: `import * as z from 'zod/v4/mini'; console.log(z.looseObject({ input_tokens: z.number() }).safeParse(globalThis.x));`,
  },
  {
    name: 'classic: UsageSchema',
    source: `import { UsageSchema, validate } from '@openresponses/zod'; console.log(validate(UsageSchema, globalThis.x));`,
  },
  {
    name: 'mini: UsageSchema',
    source: `import { UsageSchema, validate } from '@openresponses/zod/mini'; console.log(validate(UsageSchema, globalThis.x));`,
    target: 8 * 1024,
  },
  {
    name: 'classic: ResponseResourceSchema',
    source: `import { ResponseResourceSchema, validate } from '@openresponses/zod'; console.log(validate(ResponseResourceSchema, globalThis.x));`,
  },
  {
    name: 'mini: ResponseResourceSchema',
    source: `import { ResponseResourceSchema, validate } from '@openresponses/zod/mini'; console.log(validate(ResponseResourceSchema, globalThis.x));`,
    target: 20 * 1024,
  },
  {
    name: 'classic: StreamingEventSchema',
    source: `import { StreamingEventSchema, validate } from '@openresponses/zod'; console.log(validate(StreamingEventSchema, globalThis.x));`,
  },
  {
    name: 'mini: StreamingEventSchema',
    source: `import { StreamingEventSchema, validate } from '@openresponses/zod/mini'; console.log(validate(StreamingEventSchema, globalThis.x));`,
  },
  {
    name: 'standalone: validateUsage',
    source: `import { validateUsage } from '@openresponses/types/validate'; console.log(validateUsage(globalThis.x));`,
    target: 1024, // issue 26: one small schema's validator costs less than zod alone
  },
  {
    name: 'standalone: validateResponseResource',
    source: `import { validateResponseResource } from '@openresponses/types/validate'; console.log(validateResponseResource(globalThis.x));`,
    target: 5 * 1024, // issue 26: a quarter of the mini schema's target
  },
  {
    name: 'standalone forward: validateStreamingEvent',
    source: `import { validateStreamingEvent } from '@openresponses/types/validate/forward'; console.log(validateStreamingEvent(globalThis.x));`,
  },
  {
    name: 'stream checker, validation off',
    source: `import { checkStream, createStreamChecker } from '@openresponses/events'; console.log(createStreamChecker({ validateSchemas: false }), checkStream(globalThis.x, { validateSchemas: false }));`,
    target: 16_500, // issue 37: only each version's spec-exact event validator (36.1 KB with every validator)
  },
  {
    name: 'JSON Schema document: ResponseResource',
    source: `import { jsonSchema } from '@openresponses/types/json-schema'; console.log(jsonSchema('ResponseResource'));`,
  },
  {
    name: 'whole client (createClient)',
    source: `import { createClient } from '@openresponses/client'; console.log(createClient({ baseURL: 'http://127.0.0.1' }));`,
    target: 20 * 1024, // issue 26: the client validates with the standalone functions (21.5 KB with zod mini)
  },
];

async function bundle(source: string): Promise<{ minified: number; gzip: number }> {
  const result = await build({
    stdin: { contents: source, resolveDir: here, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return { minified: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

export async function run(): Promise<void> {
  if (!existsSync(path.join(root, 'packages/zod/dist/generated/mini/index.gen.js')))
    throw new Error('packages are not built: run npm run build');
  const results = [];
  for (const c of cases) results.push({ ...c, ...(await bundle(c.source)) });
  const baseline = results.find((r) => r.name.startsWith('zod mini alone'))!;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log('\nBundle sizes (esbuild --bundle --minify, browser ESM; gzip -9), side by side in one run');
  console.log(
    `${'entry'.padEnd(44)} ${'minified'.padStart(10)} ${'gzip'.padStart(9)} ${'vs zod mini alone'.padStart(18)}  target`,
  );
  let missed = 0;
  for (const r of results) {
    const verdict =
      r.target === undefined ? '' : r.gzip < r.target ? `< ${kb(r.target)} met` : `< ${kb(r.target)} MISSED`;
    if (r.target !== undefined && r.gzip >= r.target) missed++;
    console.log(
      `${r.name.padEnd(44)} ${kb(r.minified).padStart(10)} ${kb(r.gzip).padStart(9)} ${`${(r.gzip / baseline.gzip).toFixed(1)}x`.padStart(18)}  ${verdict}`,
    );
  }
  if (missed > 0) console.log(`${missed} bundle target(s) missed`);
}
