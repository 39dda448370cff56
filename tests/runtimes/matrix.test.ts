import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { missingFromDevDependencies } from '../../test-support/tarballs.js';
import { expect, test } from 'vitest';
import { IMPORTS, Observations, readReadme, readResults, renderMatrix, resultsDir, withSection } from './matrix.js';

test('every public package is a devDependency of these tests, so turbo builds it first', () => {
  expect(missingFromDevDependencies(new URL('./package.json', import.meta.url))).toEqual([]);
});

test('every runtime test has its results file, and nothing else is there', () => {
  // Each runtime's test file is `<runtime>.test.ts`; the other two check the matrix and the built output.
  const runtimes = readdirSync(fileURLToPath(new URL('.', import.meta.url)))
    .filter((f) => f.endsWith('.test.ts') && f !== 'matrix.test.ts' && f !== 'no-node-imports.test.ts')
    .map((f) => f.replace('.test.ts', '.json'))
    .sort();
  expect(readdirSync(resultsDir).sort()).toEqual(runtimes);
});

test('the root README runtime matrix is the rendering of tests/runtimes/results (npm run matrix -w tests/runtimes)', () => {
  const readme = readReadme();
  expect(readme).toBe(withSection(readme, renderMatrix(readResults())));
});

test('a package is "not supported" when any part is, "works with limits" with a reason (numbered once), "loads" when only imported', () => {
  const one = new Observations('One', 'one 1.0');
  one.works('a', IMPORTS);
  one.works('a', 'serves');
  one.works('d', IMPORTS);
  one.works('e', IMPORTS);
  one.limit('e', 'needs a flag');
  one.limit('b', 'needs a flag');
  one.works('b', 'imports');
  one.unsupported('c', 'no sockets');
  one.works('c', 'imports');
  const two = new Observations('Two', 'two 2.0');
  two.limit('b', 'needs a flag');
  const table = renderMatrix([one.results(), two.results()]);
  expect(table.split('\n').slice(1, 10)).toEqual([
    '| package | One                         | Two                     |',
    '| ------- | --------------------------- | ----------------------- |',
    '| `a`     | works                       | not tested              |',
    '| `b`     | works with limits ([1])     | works with limits ([1]) |',
    '| `c`     | not supported ([2])         | not tested              |',
    '| `d`     | loads (not exercised)       | not tested              |',
    '| `e`     | loads (not exercised) ([1]) | not tested              |',
    '',
    '- [1] needs a flag',
  ]);
  expect(table).toContain(`- **One** (one 1.0):\n  - \`a\`: ${IMPORTS}; serves`);
});
