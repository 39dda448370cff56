// Every relative link in every Markdown file of the repository (READMEs, guides, the server reference,
// changesets) points at a file that exists, and every `#anchor` at a heading GitHub renders with that
// anchor. Web links are not fetched (CI has no network).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { anchors, links, markdownFiles, repoRoot } from './markdown.js';

function brokenLinks(file: string, text: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved =
      pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(pathPart)));
    const where = `${file}:${line} -> ${target}`;
    if (resolved.startsWith('..')) {
      broken.push(`${where} (outside the repository)`);
      continue;
    }
    const content = read(resolved);
    if (content === undefined) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchors(content).has(anchor)) broken.push(`${where} (no such heading)`);
  }
  return broken;
}

const readRepo = (file: string): string | undefined => {
  const full = path.join(repoRoot, file);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
};

test('every relative link and anchor in the Markdown files resolves', () => {
  const files = markdownFiles();
  expect(files).toContain('docs/README.md');
  const broken = files.flatMap((file) => brokenLinks(file, readFileSync(path.join(repoRoot, file), 'utf8'), readRepo));
  expect(broken).toEqual([]);
});

test('the check finds a missing file, a missing heading and a link leaving the repository', () => {
  const docs: Record<string, string> = {
    'docs/a.md': [
      '# Title',
      '## Two modes: `exact` and forward',
      '[ok](b.md#run-it) [ok](#title) [ok](#two-modes-exact-and-forward) [ok](https://example.com/x)',
      '[gone](c.md) [no heading](b.md#nope) [outside](../../x.md)',
      '```md',
      '[in code](nowhere.md)',
      '```',
      'and `[inline](nowhere.md)`',
    ].join('\n'),
    'docs/b.md': '# B\n## Run it\n',
  };
  expect(brokenLinks('docs/a.md', docs['docs/a.md']!, (f) => docs[f])).toEqual([
    'docs/a.md:4 -> c.md (no such file)',
    'docs/a.md:4 -> b.md#nope (no such heading)',
    'docs/a.md:4 -> ../../x.md (outside the repository)',
  ]);
});
