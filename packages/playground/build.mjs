// Bundles the page (src/page.ts with the client and events packages, from their workspace sources) into
// dist/index.js, which exports the HTML document and its script as strings for a server to serve.
// The client is bundled, not depended on: declaring it would close a cycle (the client's tests run the
// server, which serves this page); turbo.json lists the client's sources among this build's inputs.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url);
const bundle = await build({
  entryPoints: [new URL('src/page.ts', here).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  conditions: ['@openresponses/source'],
  legalComments: 'none',
});
const script = bundle.outputFiles[0].text;
const html = await readFile(new URL('src/page.html', here), 'utf8');
await mkdir(new URL('dist/', here), { recursive: true });
await writeFile(
  new URL('dist/index.js', here),
  `// Built by build.mjs from src/page.html and src/page.ts. Do not edit.\nexport const PLAYGROUND_HTML = ${JSON.stringify(html)};\nexport const PLAYGROUND_SCRIPT = ${JSON.stringify(script)};\n`,
);
console.log(`playground: page ${html.length} bytes, script ${script.length} bytes`);
