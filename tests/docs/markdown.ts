// Reading Markdown the way the docs tests need it: fenced code blocks (with their line), relative links
// (outside code), the anchors GitHub gives headings, and the packages a guide installs and its blocks import.
import { execFileSync } from 'node:child_process';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CodeBlock {
  /** The info string's first word: `ts`, `sh`, `json`, … */
  lang: string;
  /** 1-based line of the first line of code (the line after the opening fence). */
  line: number;
  code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;

export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    blocks.push({ lang: open[3] ?? '', line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

export interface Link {
  target: string;
  line: number;
}

/** Inline links and images `[text](target)` and reference definitions `[id]: target`, outside code. */
export function links(markdown: string): Link[] {
  const found: Link[] = [];
  let inFence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = FENCE.exec(text);
    if (fence) {
      if (inFence === undefined) inFence = fence[2];
      else if (text.trimStart().startsWith(inFence)) inFence = undefined;
      return;
    }
    if (inFence !== undefined) return;
    const prose = text.replace(/(`+)[^`]*?\1/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      found.push({ target: match[1]!, line: index + 1 });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) found.push({ target: definition[1]!, line: index + 1 });
  });
  return found;
}

/** The anchors GitHub generates for a document's headings (`## Two modes` -> `two-modes`), and explicit `<a id>`s. */
export function anchors(markdown: string): Set<string> {
  const result = new Set<string>();
  const counts = new Map<string, number>();
  let inFence: string | undefined;
  for (const text of markdown.split('\n')) {
    const fence = FENCE.exec(text);
    if (fence) {
      if (inFence === undefined) inFence = fence[2];
      else if (text.trimStart().startsWith(inFence)) inFence = undefined;
      continue;
    }
    if (inFence !== undefined) continue;
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(match[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = heading[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const seen = counts.get(slug) ?? 0;
    counts.set(slug, seen + 1);
    result.add(seen === 0 ? slug : `${slug}-${seen}`);
  }
  return result;
}

/** Every Markdown file the repository tracks (plus untracked ones not ignored), relative to its root. */
export function markdownFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\n').filter((f) => f !== ''))].sort();
}

/** The package a module specifier names (`@openresponses/zod/mini` -> `@openresponses/zod`, `ai` -> `ai`). */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The packages a block imports (static imports, re-exports and `import('…')`), Node's built-ins left out. */
export function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return [...new Set(specifiers.filter((s) => !s.startsWith('.') && !isBuiltin(s)).map((s) => packageName(s)))].sort();
}

/**
 * The packages a document's `npm install …` commands name, in ```sh blocks and in inline code alike (flags,
 * versions and `# comments` left out): what a reader following it has installed.
 */
export function installedPackages(markdown: string): string[] {
  const commands = [
    ...codeBlocks(markdown)
      .filter((b) => b.lang === 'sh' || b.lang === 'bash' || b.lang === 'shell')
      .flatMap((b) => b.code.split('\n').map((line) => line.replace(/(^|\s)#.*$/, ''))),
    ...[...markdown.matchAll(/`(npm (?:install|i|add) [^`]+)`/g)].map((m) => m[1]!),
  ].flatMap((line) => line.split(/&&|;/));
  const names = commands
    .map((command) => /^\s*npm (?:install|i|add)\s+(.*)$/.exec(command)?.[1] ?? '')
    .flatMap((args) => args.split(/\s+/))
    .filter((arg) => arg !== '' && !arg.startsWith('-'))
    .map((arg) => arg.replace(/(.)@.*$/, '$1'));
  return [...new Set(names)].sort();
}
