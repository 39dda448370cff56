// Type-checking cost of two consumers, compiled against the built packages (run `npm run build` first;
// `npm run bench` does): one uses z.infer on ResponseResource and the streaming-event union, the other
// builds a three-item vendor registry and narrows its items, the third validates with the standalone functions.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const consumers = [
  {
    name: 'z.infer<ResponseResource> and z.infer<StreamingEvent>',
    tsconfig: 'bench/typecheck-consumer/tsconfig.json',
  },
  { name: 'three-item registry, narrowing its items', tsconfig: 'bench/typecheck-registry/tsconfig.json' },
  // Issue 26's target for this one: under 5,000 instantiations.
  { name: 'standalone validators: validate/is + narrowing', tsconfig: 'bench/typecheck-validate/tsconfig.json' },
];

export function run(): void {
  if (!existsSync(path.join(root, 'packages/extensions/dist/index.d.ts')))
    throw new Error('packages are not built: run npm run build');
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  console.log('\nType-checking consumers (tsc --extendedDiagnostics, best of 3; targets: < 20,000 and < 0.5 s)');
  for (const consumer of consumers) {
    const samples: Array<{ instantiations: number; checkSeconds: number }> = [];
    for (let i = 0; i < 3; i++) {
      const output = execFileSync(
        process.execPath,
        [tsc, '-p', path.join(root, consumer.tsconfig), '--extendedDiagnostics'],
        {
          encoding: 'utf8',
        },
      );
      const read = (label: string) => Number(new RegExp(`^${label}:\\s+([\\d.]+)`, 'm').exec(output)?.[1]);
      samples.push({ instantiations: read('Instantiations'), checkSeconds: read('Check time') });
    }
    const best = Math.min(...samples.map((s) => s.checkSeconds));
    console.log(
      `${consumer.name.padEnd(56)} instantiations: ${samples[0]!.instantiations.toLocaleString('en-US').padStart(7)}   check time: ${best.toFixed(2)} s`,
    );
  }
}
