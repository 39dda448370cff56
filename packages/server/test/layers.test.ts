// The server's layers, top to bottom, and the rules that keep them: no import runs up (or sideways between
// folders of one layer), and no hand-written file is over 400 lines. Read from the sources with the
// TypeScript compiler's own import scanner, so every `import`, `export … from` and `import()` counts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src');

/**
 * Top to bottom; each entry is a layer, each name a folder of `src/` (`.` the files directly in it, the
 * ground floor). A file may import its own folder and any layer below its own, never above or sideways.
 */
const LAYERS: readonly (readonly string[])[] = [
  // The package's entry points: the Node adapters and CLI, test support for users.
  ['node', 'testing'],
  // The composition root: configuration, route table, middleware, both transports.
  ['service'],
  // The transports: HTTP routes and middleware; the WebSocket session over { send, close }.
  ['handler', 'websocket'],
  // The turn in stages, background responses, compaction.
  ['responses'],
  // Model providers, one folder per dialect, and the family-neutral contracts.
  ['models'],
  ['stores'],
  // Exchange types, cancellation, admission, errors, limits.
  ['.'],
  // Telemetry names and instrumentation over @opentelemetry/api alone, for every layer.
  ['telemetry'],
];

/** The root `index.ts` is the package's main entry: it re-exports from every layer. */
const ENTRY = 'index.ts';
const MAX_LINES = 400;
/**
 * Files over the line limit whose split is under way in another engineer's area, each with why. An entry
 * that is no longer needed fails the test, so the list can only shrink.
 */
const OVER_LIMIT_PENDING: Readonly<Record<string, string>> = {};

function sourceFiles(folder = SRC): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The folder of `src/` a file is in (`.` for the files directly in `src/`). */
const folderOf = (file: string) => {
  const parts = path.relative(SRC, file).split(path.sep);
  return parts.length === 1 ? '.' : parts[0]!;
};
const rankOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

/** `from -> to` for every relative import that breaks the order, with the reason. */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, text] of files) {
    const relative = path.relative(SRC, file);
    if (relative === ENTRY) continue;
    const from = folderOf(file);
    if (rankOf(from) < 0) {
      violations.push(`${relative}: the folder '${from}' is in no layer (add it to LAYERS)`);
      continue;
    }
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.join(path.dirname(file), fileName);
      const to = folderOf(target);
      if (to === from) continue;
      const targetRelative = path.relative(SRC, target);
      if (targetRelative.startsWith('..')) violations.push(`${relative} -> ${fileName}: outside src/`);
      else if (rankOf(to) <= rankOf(from))
        violations.push(
          `${relative} -> ${targetRelative}: '${from}' may not import '${to}' (${rankOf(to) < rankOf(from) ? 'a higher layer' : 'a sibling of its layer'})`,
        );
    }
  }
  return violations;
}

const files = new Map(sourceFiles().map((file) => [file, readFileSync(file, 'utf8')] as const));

describe('the server layers', () => {
  test('no import runs up a layer or sideways between the folders of one', () => {
    expect(layerViolations(files)).toEqual([]);
  });

  test('the check fails on an upward import, a sideways import and an unknown folder', () => {
    const bad = new Map([
      [path.join(SRC, 'stores/bad.ts'), "import { json } from '../handler/body.js';"],
      [path.join(SRC, 'errors-bad.ts'), "export { Cancellation } from './responses/turn.js';"],
      [path.join(SRC, 'websocket/bad.ts'), "const lazy = () => import('../handler/router.js');"],
      [path.join(SRC, 'extras/bad.ts'), "import type { X } from '../errors.js';"],
      [
        path.join(SRC, 'models/fine.ts'),
        "import type { X } from '../stores/contract.js';\nimport { Y } from './provider.js';",
      ],
    ]);
    expect(layerViolations(bad)).toEqual([
      "stores/bad.ts -> handler/body.js: 'stores' may not import 'handler' (a higher layer)",
      "errors-bad.ts -> responses/turn.js: '.' may not import 'responses' (a higher layer)",
      "websocket/bad.ts -> handler/router.js: 'websocket' may not import 'handler' (a sibling of its layer)",
      "extras/bad.ts: the folder 'extras' is in no layer (add it to LAYERS)",
    ]);
  });

  test('telemetry/ imports only the OpenTelemetry API and semantic conventions (the library stays SDK-free)', () => {
    const packages: string[] = [];
    for (const [file, text] of files) {
      if (folderOf(file) !== 'telemetry') continue;
      for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles)
        if (!fileName.startsWith('.') && !/^@opentelemetry\/(api|semantic-conventions)$/.test(fileName))
          packages.push(`${path.relative(SRC, file)} -> ${fileName}`);
    }
    expect(packages).toEqual([]);
  });

  test("zod is imported as 'zod/v4' (the peer range takes zod 3.25, whose bare 'zod' is zod 3, without looseObject)", () => {
    const bare: string[] = [];
    for (const [file, text] of files)
      for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles)
        if (fileName === 'zod' || (fileName.startsWith('zod/') && !fileName.startsWith('zod/v4')))
          bare.push(`${path.relative(SRC, file)} -> ${fileName}`);
    expect(bare).toEqual([]);
  });

  test(`no hand-written file is over ${MAX_LINES} lines`, () => {
    const over: string[] = [];
    const stillNeeded = new Set<string>();
    for (const [file, text] of files) {
      const relative = path.relative(SRC, file).split(path.sep).join('/');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines <= MAX_LINES) continue;
      if (relative in OVER_LIMIT_PENDING) stillNeeded.add(relative);
      else over.push(`${relative}: ${lines} lines`);
    }
    expect(over).toEqual([]);
    expect(Object.keys(OVER_LIMIT_PENDING).filter((file) => !stillNeeded.has(file))).toEqual([]);
  });
});
