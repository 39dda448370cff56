// Type-checking cost for a consumer that uses z.infer on ResponseResource and the streaming-event union,
// compiled against the built packages (run `npm run build` first; `npm run bench` does).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function run(): void {
  if (!existsSync(path.join(root, 'packages/zod/dist/index.d.ts')))
    throw new Error('packages are not built: run npm run build');
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const samples: Array<{ instantiations: number; checkSeconds: number }> = [];
  for (let i = 0; i < 3; i++) {
    const output = execFileSync(
      process.execPath,
      [tsc, '-p', path.join(root, 'bench/typecheck-consumer/tsconfig.json'), '--extendedDiagnostics'],
      { encoding: 'utf8' },
    );
    const read = (label: string) => Number(new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(output)?.[1]);
    samples.push({ instantiations: read('Instantiations'), checkSeconds: read('Check time') });
  }
  const best = Math.min(...samples.map((s) => s.checkSeconds));
  console.log(
    '\nType-checking a consumer of z.infer<ResponseResource> and z.infer<StreamingEvent> (tsc --extendedDiagnostics, best of 3)',
  );
  console.log(
    `instantiations: ${samples[0]!.instantiations.toLocaleString('en-US')}   check time: ${best.toFixed(2)} s   (targets: < 20,000 and < 0.5 s)`,
  );
}
