// `npm run docs` as CI runs it: TypeDoc over every public package's published entry points with its
// validation as errors (an undocumented export, a link that does not resolve, a referenced type left out
// of the docs each fail the build), then the built site opened in headless Chromium (Debian's chromium,
// driven by playwright-core): the index and one API page render with their headings. A canary project
// proves the same options fail on an undocumented export and on a broken link.
import { execFile } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { Application, LogLevel, type TypeDocOptions } from 'typedoc';
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { CHROMIUM, chromiumAvailable, launchChromium } from '../../test-support/chromium.js';
import { markdownFiles, repoRoot } from './markdown.js';

const run = promisify(execFile);
/** The docs' own .mjs modules, loaded by URL (they have no declarations). */
const load = (file: string): Promise<unknown> => import(pathToFileURL(path.join(repoRoot, file)).href);
const available = chromiumAvailable();
if (!available && process.env.CI)
  throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium for this test`);

const out = mkdtempSync(path.join(tmpdir(), 'openresponses-docs-'));
let build = { code: 0, output: '', ms: 0 };
let site: Server | undefined;
let siteUrl = '';
let browser: Browser | undefined;

beforeAll(async () => {
  const started = performance.now();
  const typedoc = path.join(repoRoot, 'node_modules/typedoc/bin/typedoc');
  const config = path.join(repoRoot, 'docs/typedoc/typedoc.config.mjs');
  build = await run(process.execPath, [typedoc, '--options', config, '--out', out], {
    cwd: repoRoot,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr, ms: 0 }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      ms: 0,
    }),
  );
  build.ms = Math.round(performance.now() - started);
  console.log(`docs build: ${build.ms} ms`);
  site = createServer((req, res) => {
    const file = path.join(out, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const target = file.endsWith('/') ? path.join(file, 'index.html') : file;
    if (!target.startsWith(out) || !existsSync(target) || !statSync(target).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = target.endsWith('.html')
      ? 'text/html'
      : target.endsWith('.js')
        ? 'text/javascript'
        : target.endsWith('.css')
          ? 'text/css'
          : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type });
    createReadStream(target).pipe(res);
  });
  await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  if (available) browser = await launchChromium();
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  rmSync(out, { recursive: true, force: true });
});

test('npm run docs builds with no warning: nothing undocumented, every link resolved', () => {
  const warnings = build.output.split('\n').filter((line) => /\[(warning|error)\]/.test(line));
  expect(warnings).toEqual([]);
  expect(build.code).toBe(0);
  expect(existsSync(path.join(out, 'index.html'))).toBe(true);
});

/** The page TypeDoc writes for a module named by its import path. */
const modulePage = (importPath: string): string => `modules/${importPath.replace(/[@/]/g, '_')}.html`;

test('every published entry point has its module page', async () => {
  const { entryPoints } = (await load('docs/typedoc/entry-points.mjs')) as {
    entryPoints: () => Array<{ importPath: string }>;
  };
  const missing = entryPoints()
    .map((e) => modulePage(e.importPath))
    .filter((page) => !existsSync(path.join(out, page)));
  expect(missing).toEqual([]);
});

test('every entry point the guides and READMEs name has its module page (the validate guide recommends by-version)', () => {
  const publicNames = readdirSync(path.join(repoRoot, 'packages'))
    .map((dir) => path.join(repoRoot, 'packages', dir, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; private?: boolean })
    .filter((pkg) => !pkg.private)
    .map((pkg) => pkg.name);
  const named = new Set(
    markdownFiles()
      .filter((file) => file === 'README.md' || /^(docs|packages\/[^/]+)\/[^/]+\.md$/.test(file))
      .flatMap((file) => [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/@openresponses\/[\w/-]+/g)])
      .map((match) => match[0].replace(/\/$/, ''))
      .filter((name) => publicNames.some((pkg) => name === pkg || name.startsWith(`${pkg}/`))),
  );
  expect(named).toContain('@openresponses/types/validate/by-version');
  expect([...named].filter((name) => !existsSync(path.join(out, modulePage(name))))).toEqual([]);
});

test('every module has a description, on the module list and on its page', () => {
  const list = readFileSync(path.join(out, 'modules.html'), 'utf8');
  // `<a href="modules/….html">@openresponses/…</a>…</dt><dd class="tsd-member-summary">description</dd>`
  const rows = [
    ...list.matchAll(/<a href="(modules\/[^"#]+\.html)">([^<]+)<\/a>.*?<dd class="tsd-member-summary">(.*?)<\/dd>/gs),
  ];
  expect(rows.length).toBeGreaterThanOrEqual(28);
  expect(rows.filter(([, , , description]) => description!.trim() === '').map(([, , name]) => name)).toEqual([]);
  // The module comment is the section right under the page's title.
  const withoutComment = rows
    .filter(
      ([, page]) =>
        !/<\/h1><\/div>\s*<section class="tsd-panel tsd-comment">/.test(readFileSync(path.join(out, page!), 'utf8')),
    )
    .map(([, , name]) => name);
  expect(withoutComment).toEqual([]);
});

test('the index page shows its title once', () => {
  const index = readFileSync(path.join(out, 'index.html'), 'utf8');
  expect([...index.matchAll(/<h1\b[^>]*>(.*?)<\/h1>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, ''))).toEqual([
    'Open Responses TypeScript toolkit: API reference',
  ]);
});

test.skipIf(!available)('the index and an API page render in Chromium', async () => {
  const page = await browser!.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${siteUrl}/index.html`);
  expect(await page.title()).toBe('Open Responses TypeScript toolkit');
  expect(await page.locator('.tsd-typography h1').first().textContent()).toBe(
    'Open Responses TypeScript toolkit: API reference',
  );
  // The module list names each entry point by its import path.
  await page.goto(`${siteUrl}/modules.html`);
  expect(await page.locator('.col-content a', { hasText: /^@openresponses\/server\/node$/ }).count()).toBe(1);
  expect(await page.locator('.col-content a', { hasText: /^@openresponses\/types\/validate$/ }).count()).toBe(1);

  await page.goto(`${siteUrl}/functions/_openresponses_server.createResponsesHandler.html`);
  expect(await page.locator('h1').first().textContent()).toBe('Function createResponsesHandler');
  expect(await page.locator('.tsd-comment').first().textContent()).toContain('The fetch-style handler');
  expect(await page.title()).toContain('createResponsesHandler');
  expect(errors).toEqual([]);
  await page.close();
});

test('the same validation fails on an undocumented export and on a broken link', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-docs-canary-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'canary', version: '1.0.0', type: 'module' }));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', target: 'ES2022' }, include: ['src'] }),
  );
  writeFileSync(
    path.join(dir, 'src/index.ts'),
    [
      '/** Documented, but links to {@link Nowhere}. */',
      'export const documented = 1;',
      'export function undocumented(): number {',
      '  return 2;',
      '}',
    ].join('\n'),
  );
  const config = (await load('docs/typedoc/typedoc.config.mjs')) as { default: Partial<TypeDocOptions> };
  const { plugin: _plugin, intentionallyNotDocumented: _pending, ...options } = config.default;
  const messages: string[] = [];
  const app = await Application.bootstrap({
    ...options,
    entryPoints: [path.join(dir, 'src/index.ts')],
    tsconfig: path.join(dir, 'tsconfig.json'),
    packagesRequiringDocumentation: ['canary'],
    readme: 'none',
    logLevel: LogLevel.Warn,
  });
  app.logger.log = (message: string) => void messages.push(message);
  const project = await app.convert();
  expect(project).toBeDefined();
  app.validate(project!);
  expect(messages.join('\n')).toMatch(/undocumented \(\w+\).*does not have any documentation/);
  expect(messages.join('\n')).toMatch(/Failed to resolve link to "Nowhere"/);
});
