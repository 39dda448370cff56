// npm run bench — runs every bench/*.bench.ts in a fresh Node process (so one benchmark's JIT and GC
// state cannot slow the next), each printing its cases measured side by side in that one run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(here, 'entry.ts'), path.join(here, file)],
    { stdio: 'inherit' },
  );
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
